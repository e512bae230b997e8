package sparkpersist

/**
 * Planning a scan: what the query asks of a scan ([[sparkpersist.plan.ScanRequest]]: view,
 * as-of, filter, `mz_now()`), the part decisions the interpreter makes against the state (pruning,
 * segment skipping, UDF probes, runtime filters), the pushdown mode and its soft check, and how
 * parts are packed into tasks. It knows nothing of consolidation, scans or the catalog.
 *
 * Layer rule: `plan` imports `PersistConf`, `interpret`, `positional`, `read`, `schema`, `shard`, `stats`, `util`.
 */
package object plan
