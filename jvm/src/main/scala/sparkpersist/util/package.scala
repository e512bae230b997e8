package sparkpersist

/**
 * Small algorithms with no persist vocabulary (next-fit packing). Imports nothing of sparkpersist.
 */
package object util
