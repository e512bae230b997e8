package sparkpersist

/**
 * Lifecycle of a shard: compaction (merging batches, with the k-way merge of `consolidate`),
 * retention, garbage collection and the batch removal, run as procedures, by commit hooks or from
 * the API. May import `catalog` (the procedure interface), `consolidate`, `read`, `write` and the
 * layers below.
 */
package object compact
