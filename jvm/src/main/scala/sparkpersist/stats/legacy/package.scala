package sparkpersist.stats

/**
 * The JSON encoding of part statistics that releases before binary stats wrote (a part's `stats`
 * field in state versions and JSON rollups, where today's parts carry `binStats`,
 * [[sparkpersist.stats.BinaryStatsCodec]]). Read-only: state files written then are still read, so
 * their stats are still decoded, exactly as before; nothing writes this encoding any more. Tests
 * that need stats in it make them with a writer of their own (test sources, same package).
 *
 * Layer rule: `stats.legacy` imports `codec`, `schema`, `stats`.
 */
package object legacy
