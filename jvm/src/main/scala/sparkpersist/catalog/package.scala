package sparkpersist

/**
 * The catalog Spark sees: [[sparkpersist.catalog.PersistCatalog]], the tables of a shard
 * (snapshot, updates, parts, batches), DDL, time travel and the system procedures interface that
 * `compact` implements.
 *
 * Layer rule: `catalog` imports `PersistConf`, `cluster`, `dml`, `index`, `plan`, `scan`, `schema`, `shard`,
 * `stats`, `write`.
 */
package object catalog
