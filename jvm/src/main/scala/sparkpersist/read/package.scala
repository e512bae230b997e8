package sparkpersist

/**
 * Reading part files: a part's Parquet file opened row by row or as columnar batches, with the
 * filters handed to Parquet inside it, and the errors that name an unreadable or unsupported part.
 * It knows nothing of scans, pruning or consolidation, nor of writing: the part layout it
 * checks is `shard`'s ([[sparkpersist.shard.PartFormat]]).
 *
 * Layer rule: `read` imports `errors`, `org.apache.spark.sql.sparkpersist`, `positional`, `schema`, `shard`, `util`.
 */
package object read
