package sparkpersist

/**
 * Former names kept for existing configurations (`sparkpersist.source.PersistCatalog`). Imports
 * only `catalog`.
 */
package object source
