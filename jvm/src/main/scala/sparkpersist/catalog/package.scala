package sparkpersist

/**
 * The catalog Spark sees: [[sparkpersist.catalog.PersistCatalog]], the tables of a shard
 * (snapshot, updates, parts, batches), DDL, time travel and the system procedures interface that
 * `compact` implements. May import `scan`, `plan`, `write` and the layers below.
 */
package object catalog
