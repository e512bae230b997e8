package sparkpersist

/**
 * Per-part statistics: what the collectors record while a part is written (bounds, null counts,
 * membership filters, cast, JSON and VARIANT statistics), the stats budget that trims them, and
 * their codecs.
 *
 * Layer rule: `stats` imports `codec`, `schema`.
 */
package object stats
