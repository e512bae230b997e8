package sparkpersist

/**
 * The DataSource V2 scan of a shard: [[sparkpersist.scan.PersistScan]], an adapter over a
 * [[sparkpersist.plan.ScanPlan]], and what it reads of it ([[sparkpersist.scan.PartReading]]:
 * input partitions, read straight or consolidated), its reader factory, metrics and scan reports,
 * the statistics reported to the optimizer, and the micro-batch stream interface that `stream`
 * implements.
 *
 * Layer rule: `scan` imports `PersistConf`, `cluster`, `consolidate`, `plan`, `positional`, `read`, `schema`,
 * `shard`, `stats`.
 */
package object scan
