package sparkpersist

/**
 * Catalyst rules and functions the session extension installs: `mz_now()`, the per-query
 * as-of and its pinning, and the rule that hands a scan the filter above it.
 *
 * Layer rule: `catalyst` imports `PersistConf`, `catalog`, `dml`, `errors`, `interpret`,
 * `org.apache.spark.sql.sparkpersist`, `plan`, `schema`, `shard`, `stream`, `write`.
 */
package object catalyst
