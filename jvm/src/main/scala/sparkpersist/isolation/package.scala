package sparkpersist

/**
 * Statements beside other writers: what a `DELETE`, `UPDATE`, `MERGE` or overwrite read
 * ([[isolation.StatementReads]]), which commits that landed after its read conflict with it under
 * the shard's [[isolation.IsolationLevel]], and how its batch follows the others when none does
 * ([[isolation.StatementRebase]]), or fails with [[isolation.ConcurrentShardUpdate]] naming the one
 * that does.
 *
 * Layer rule: `isolation` imports `PersistConf`, `errors`, `plan`, `positional`, `schema`, `shard`, `write`.
 */
package object isolation
