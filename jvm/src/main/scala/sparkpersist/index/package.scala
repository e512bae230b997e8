package sparkpersist

/**
 * Index columns: the columns a shard is asked to keep membership filters for. May import `stats`
 * and `schema`.
 */
package object index
