package sparkpersist

/**
 * Writing batches: the DataFrame writer and SQL INSERT, Parquet parts with their statistics,
 * NOT NULL checks, and the one compare-and-set commit of a batch; the service interfaces
 * ([[sparkpersist.write.CommitHook]], [[sparkpersist.write.StreamingWrites]]) that layers above
 * implement. It holds nothing that reads parts, and `read` nothing of it (they share a layer, so
 * neither may import the other): the part layout both follow is `shard`'s.
 *
 * Layer rule: `write` imports `PersistConf`, `errors`, `org.apache.spark.sql.sparkpersist`, `schema`, `shard`,
 * `stats`, `util`.
 */
package object write
