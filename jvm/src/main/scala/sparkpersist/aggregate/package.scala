package sparkpersist

/**
 * Aggregates answered from statistics: `count`, `min` and `max` over the parts of a shard on which
 * the filter is proven true, from their exact statistics, merged with a partial aggregate over the
 * parts that must be read (the optimizer rule [[sparkpersist.aggregate.AnswerAggregatesFromStats]]).
 *
 * Layer rule: `aggregate` imports `PersistConf`, `catalog`, `interpret`, `plan`, `positional`, `scan`, `schema`,
 * `shard`, `stats`.
 */
package object aggregate
