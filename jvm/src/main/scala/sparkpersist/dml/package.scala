package sparkpersist

/**
 * Row-level operations from SQL and DataFrames (`DELETE`, `UPDATE`, `MERGE INTO`): Spark's
 * delta-based rewrite (`SupportsDelta`) over a scan of the shard's snapshot that names each row
 * ([[sparkpersist.scan.RowIdentity]]), and a write that turns what Spark hands it into updates:
 * the old row with diff -1, the new row with diff +1, one batch at one new time, committed with
 * one compare-and-set, after what others committed meanwhile unless that conflicts
 * ([[sparkpersist.isolation]]). No part is rewritten.
 *
 * Layer rule: `dml` imports `interpret`, `isolation`, `org.apache.spark.sql.sparkpersist`, `plan`, `positional`,
 * `scan`, `schema`, `shard`, `write`.
 */
package object dml
