package sparkpersist

/**
 * Consolidation of updates: the one k-way merge of sorted runs (used on read and by
 * compaction), the consolidation that sums each row's diffs as of a time, and its split into key
 * ranges and row shares read by parallel tasks. May import `read`, `interpret` (value orderings),
 * `shard` and the layers below; never `plan`, `scan` or `catalog`.
 */
package object consolidate
