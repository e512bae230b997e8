package sparkpersist

/**
 * The abstract interpreter: a Catalyst expression evaluated over a part's statistics to a
 * [[sparkpersist.interpret.ResultSpec]] (the values and errors it may produce), and from it the
 * [[sparkpersist.interpret.PartFilter]] that rules parts out, one part at a time or vectorized.
 *
 * Layer rule: `interpret` imports `schema`, `stats`.
 */
package object interpret
