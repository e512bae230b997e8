package sparkpersist

/**
 * Writing batches: the DataFrame writer and SQL INSERT, Parquet parts with their statistics,
 * NOT NULL checks, and the one compare-and-set commit of a batch; the service interfaces
 * ([[sparkpersist.write.CommitHook]], [[sparkpersist.write.StreamingWrites]]) that layers above
 * implement. May import `shard`, `stats`, `schema` and the layers below; nothing that reads.
 */
package object write
