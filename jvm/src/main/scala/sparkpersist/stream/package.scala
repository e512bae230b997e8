package sparkpersist

/**
 * Structured Streaming: micro-batch reads of a shard's updates and streaming writes with
 * exactly-once epochs.
 *
 * Layer rule: `stream` imports `catalog`, `codec`, `errors`, `interpret`, `plan`, `scan`, `schema`, `shard`,
 * `write`.
 */
package object stream
