package sparkpersist

/**
 * Positional retractions: a row-level operation (`DELETE`, `UPDATE`, `MERGE`) knows which stored
 * row each of its retractions retracts (the part and the row's position in it), records that
 * beside its run ([[positional.RetractedPositions]]), and a snapshot read that finds every
 * retraction it reads so recorded leaves out the retracted rows and the retractions by position
 * ([[positional.PositionalSnapshot]]), reading no column it does not return, instead of
 * consolidating rows by value. The retractions stay ordinary updates in their parts: every other
 * read (as of earlier times, the updates view, streams, compaction) uses them as before, and a
 * read that cannot apply the positions consolidates by value.
 *
 * Layer rule: `positional` imports `errors`, `shard`.
 */
package object positional
