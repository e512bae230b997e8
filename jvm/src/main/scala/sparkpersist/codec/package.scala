package sparkpersist

/**
 * Bytes on disk that are not Parquet: the JSON of the state log and of part statistics, checksums,
 * and Parquet byte helpers.
 *
 * Layer rule: `codec` imports nothing of sparkpersist.
 */
package object codec
