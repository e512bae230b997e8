package sparkpersist

/**
 * Catalyst rules and functions the session extension installs: `mz_now()`, the per-query
 * as-of and its pinning, and the rule that hands a scan the filter above it. May import `stream`,
 * `catalog` and the layers below.
 */
package object catalyst
