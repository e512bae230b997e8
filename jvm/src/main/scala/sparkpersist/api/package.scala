package sparkpersist

/**
 * The JVM entry points of the Python package (py4j): writes with times and diffs, lifecycle
 * calls, scan reports and monotone functions.
 *
 * Layer rule: `api` imports `PersistConf`, `catalog`, `cluster`, `compact`, `errors`, `index`, `scan`, `schema`,
 * `shard`, `write`.
 */
package object api
