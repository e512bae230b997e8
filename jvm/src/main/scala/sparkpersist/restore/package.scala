package sparkpersist

/**
 * RESTORE: a shard made equal to one of its earlier versions (or times) by one batch that retracts
 * the rows that differ and inserts the old ones, committed as a statement (`RESTORE TABLE` and
 * `CALL persist.system.restore`). History is kept: every version reads as it did.
 *
 * Layer rule: `restore` imports `catalog`, `errors`, `isolation`, `org.apache.spark.sql.sparkpersist`, `plan`, `schema`, `shard`,
 * `write`.
 */
package object restore
