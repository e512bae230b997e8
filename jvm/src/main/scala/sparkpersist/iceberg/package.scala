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
 * the schema's user columns with their column ids as field ids ([[iceberg.IcebergSchemas]]). A version
 * holding what Iceberg cannot say without reading data (retractions by value) is not written: the
 * metadata stays at the last version it could show, and says why.
 *
 * Layer rule: `iceberg` imports `PersistConf`, `errors`, `plan`, `positional`, `schema`, `shard`, `stats`, `write`.
 */
package object iceberg
