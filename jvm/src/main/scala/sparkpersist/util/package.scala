package sparkpersist

/**
 * Small algorithms with no persist vocabulary (next-fit packing, binary search of a sorted prefix, a set of
 * unboxed longs), and code run under other SQL settings. Imports nothing of sparkpersist.
 */
package object util
