package sparkpersist

/**
 * Iceberg metadata beside a shard's state, so that other engines (pyiceberg, Trino, DuckDB, Spark's
 * own Iceberg source) read the shard: an Iceberg table of format 2 in the Hadoop-table layout under
 * `<shard>/metadata/`, written with Apache Iceberg's Java library (shaded into the jar), one Iceberg
 * snapshot per shard version (summary `sparkpersist.version`). It is derived metadata and never
 * decides: it is written after the state's compare-and-set ([[iceberg.IcebergCommitHook]]), by default in
 * the background on the driver ([[iceberg.IcebergSyncQueue]], waited for when the application stops:
 * [[iceberg.IcebergSyncOnStop]]); a failure is logged and caught up by the next commit or
 * `CALL persist.system.iceberg` ([[iceberg.IcebergSync]]).
 *
 * What a version shows ([[iceberg.IcebergContents]]): insert-only parts as data files with their
 * statistics as Iceberg metrics ([[iceberg.PartMetrics]]); parts negated whole, absent; rows retracted
 * by position ([[sparkpersist.positional]]) as position delete files ([[iceberg.PositionDeletes]]);
 * the schema's user columns with their column ids as field ids ([[iceberg.IcebergSchemas]]). Rows
 * retracted by value (an overwrite, a RESTORE, an update write, a compaction's consolidation) are
 * matched to the rows they cancel in one Spark job, once per set of parts ([[iceberg.ValueDeletes]]),
 * and deleted by position too. A version Iceberg cannot say even so (a row kept more often than rows of
 * multiplicity 1 hold it) is not written: the metadata stays at the last version it could show, and
 * says why.
 *
 * Layer rule: `iceberg` imports `PersistConf`, `errors`, `plan`, `positional`, `read`, `schema`, `shard`, `stats`, `write`.
 */
package object iceberg
