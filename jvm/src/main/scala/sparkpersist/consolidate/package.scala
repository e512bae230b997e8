package sparkpersist

/**
 * Consolidation of updates: the one k-way merge of sorted runs (used on read and by
 * compaction), the consolidation that sums each row's diffs as of a time, and its split into key
 * ranges and row shares read by parallel tasks. It takes value orderings from `interpret`, and
 * knows nothing of plans, scans or the catalog.
 *
 * Layer rule: `consolidate` imports `PersistConf`, `errors`, `interpret`, `read`, `schema`, `shard`, `stats`,
 * `util`.
 */
package object consolidate
