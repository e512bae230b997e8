package sparkpersist

/**
 * The catalog Spark sees: [[sparkpersist.catalog.PersistCatalog]], the tables of a shard
 * (snapshot, updates, parts, batches), DDL, time travel and the `system` procedures: its own
 * (`last_scans`, `clustering`) and, through the [[sparkpersist.catalog.SystemProcedures]] seam,
 * the lifecycle procedures of `compact`.
 *
 * Layer rule: `catalog` imports `PersistConf`, `cluster`, `dml`, `errors`, `iceberg`, `index`, `isolation`, `plan`, `scan`,
 * `schema`, `shard`, `stats`, `write`.
 */
package object catalog
