package sparkpersist

/**
 * Per-part statistics: what the collectors record while a part is written (bounds, null counts,
 * membership filters, cast, JSON and VARIANT statistics), the stats budget that trims them, and
 * their binary codec (the JSON one of older releases, read only, is `stats.legacy`'s).
 *
 * Layer rule: `stats` imports `schema`.
 */
package object stats
