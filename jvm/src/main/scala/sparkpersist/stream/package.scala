package sparkpersist

/**
 * Structured Streaming: micro-batch reads of a shard's updates and streaming writes with
 * exactly-once epochs. May import `catalog`, `scan`, `plan`, `write` and the layers below.
 */
package object stream
