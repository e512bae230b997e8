package sparkpersist

/**
 * Lifecycle of a shard: compaction (merging batches, with the k-way merge of `consolidate`),
 * retention, garbage collection and the batch removal, run as procedures, by commit hooks or from
 * the API.
 *
 * Layer rule: `compact` imports `PersistConf`, `catalog`, `cluster`, `codec`, `consolidate`, `errors`, `iceberg`, `positional`,
 * `read`, `schema`, `shard`, `stats`, `util`, `write`.
 */
package object compact
