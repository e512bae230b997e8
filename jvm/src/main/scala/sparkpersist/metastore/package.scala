package sparkpersist

/**
 * Persist tables in Spark's session catalog and its metastore (Hive Metastore, or the in-memory
 * catalog): [[sparkpersist.metastore.PersistSessionCatalog]], set as `spark_catalog`, keeps each
 * `USING persist` table as a metastore entry with its shard at the table's location
 * ([[sparkpersist.shard.ShardLocations]]).
 *
 * Layer rule: `metastore` imports `PersistConf`, `catalog`, `errors`, `org.apache.spark.sql.sparkpersist`, `plan`, `schema`, `shard`.
 */
package object metastore
