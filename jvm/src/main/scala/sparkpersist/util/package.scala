package sparkpersist

/**
 * Small algorithms with no persist vocabulary (next-fit packing, binary search of a sorted prefix). Imports nothing of sparkpersist.
 */
package object util
