package sparkpersist

/**
 * A shard's schema ([[sparkpersist.schema.ShardSchema]]): the types a shard can store, column
 * names, nested field ids and nullability, and schema evolution (adding, renaming, widening and
 * relaxing columns).
 *
 * Layer rule: `schema` imports `errors`.
 */
package object schema
