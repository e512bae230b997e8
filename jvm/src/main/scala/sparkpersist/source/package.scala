package sparkpersist

/**
 * Former names kept for existing configurations (`sparkpersist.source.PersistCatalog`).
 *
 * Layer rule: `source` imports `catalog`.
 */
package object source
