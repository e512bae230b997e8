package sparkpersist

/**
 * `format("persist")`: the data source that reads and writes the shard at a path
 * (`spark.read.format("persist").load(uri)`, `df.write.format("persist").save(uri)`, and their
 * streaming forms), through the session's persist catalog, so that a path read is the catalog's
 * path table (`persist.\`uri\``) and a path write the catalog's write.
 *
 * Layer rule: `datasource` imports `catalog`, `errors`, `plan`, `shard`.
 */
package object datasource
