package sparkpersist

/**
 * Planning a scan: what the query asks of a scan ([[sparkpersist.plan.ScanRequest]]: view,
 * as-of, filter, `mz_now()`), the part decisions the interpreter makes against the state (pruning,
 * segment skipping, UDF probes, runtime filters), the pushdown mode and its soft check, and how
 * parts are packed into tasks. May import `read`, `interpret`, `shard` and the layers below; never
 * `consolidate`, `scan` or `catalog`.
 */
package object plan
