/** sparkpersist: persist shards for Spark, with part pruning by abstract interpretation. */
package object sparkpersist
