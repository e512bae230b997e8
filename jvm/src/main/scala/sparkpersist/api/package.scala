package sparkpersist

/**
 * The JVM entry points of the Python package (py4j): writes with times and diffs, lifecycle
 * calls, scan reports and monotone functions. May import `compact`, `catalog`, `scan` and the
 * layers below.
 */
package object api
