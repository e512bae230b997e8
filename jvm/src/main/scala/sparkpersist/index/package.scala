package sparkpersist

/**
 * Index columns: the columns a shard is asked to keep membership filters for.
 *
 * Layer rule: `index` imports `schema`, `stats`.
 */
package object index
