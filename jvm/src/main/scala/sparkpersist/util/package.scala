package sparkpersist

/**
 * Small algorithms with no persist vocabulary (next-fit packing, binary search of a sorted prefix, a set of
 * unboxed longs), and code run under other SQL settings.
 *
 * Layer rule: `util` imports nothing of sparkpersist.
 */
package object util
