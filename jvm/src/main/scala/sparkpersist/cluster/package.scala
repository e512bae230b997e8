package sparkpersist

/**
 * Clustering: the columns a shard is clustered by (`CLUSTER BY`, [[sparkpersist.cluster.ClusterColumns]]),
 * the space-filling curves along which compaction lays a time window's rows out, and the clustered
 * rows of a merge group cut into parts.
 *
 * Layer rule: `cluster` imports `codec`, `errors`, `interpret`, `schema`, `shard`, `stats`, `util`, `write`.
 */
package object cluster
