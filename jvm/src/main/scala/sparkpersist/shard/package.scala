package sparkpersist

/**
 * A shard's durable state: the versioned state log (batches, parts, `since` and `upper`
 * frontiers), its compare-and-set commits on local, HDFS and S3 file systems, the store that
 * opens shards, and the layout of its part files ([[sparkpersist.shard.PartFormat]], which `write`
 * writes and `read` checks).
 *
 * Layer rule: `shard` imports `PersistConf`, `codec`, `errors`, `schema`, `stats`, `stats.legacy`.
 */
package object shard
