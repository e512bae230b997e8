package sparkpersist

/**
 * Row-level operations from SQL and DataFrames (`DELETE`, `UPDATE`, `MERGE INTO`): Spark's
 * delta-based rewrite (`SupportsDelta`) over a scan of the shard's snapshot that names each row
 * ([[sparkpersist.scan.RowIdentity]]), and a write that turns what Spark hands it into updates:
 * the old row with diff -1, the new row with diff +1, one batch at one new time, committed with
 * one compare-and-set. No part is rewritten. May import `scan`, `plan`, `write`, `shard` and the
 * layers below.
 */
package object dml
