package sparkpersist

/**
 * Planning a read: what the query asks of a scan ([[sparkpersist.plan.ScanRequest]]: view,
 * as-of, filter, `mz_now()`) and the [[sparkpersist.plan.ScanPlan]] made once from it and the
 * state: the one as-of check, the visible parts, the decision of every part
 * ([[sparkpersist.plan.PartDecisions]]: pruning, segment skipping, UDF probes), positional reads
 * and the read mode; runtime filters, the pushdown mode and its soft check, and how parts are
 * packed into tasks. It knows nothing of consolidation, scans or the catalog.
 *
 * Layer rule: `plan` imports `PersistConf`, `errors`, `interpret`, `positional`, `read`, `schema`, `shard`, `stats`,
 * `util`.
 */
package object plan
