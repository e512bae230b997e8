package sparkpersist

/**
 * Persist tables in Spark's session catalog and its metastore (Hive Metastore, or the in-memory
 * catalog): [[sparkpersist.metastore.PersistSessionCatalog]], set as `spark_catalog`, keeps each
 * `USING persist` table as a metastore entry with its shard at the table's location, and the data source
 * `persist` ([[sparkpersist.metastore.PersistSource]]) makes the provider known to Spark.
 *
 * Layer rule: `metastore` imports `catalog`, `org.apache.spark.sql.sparkpersist`, `plan`, `schema`, `shard`.
 */
package object metastore
