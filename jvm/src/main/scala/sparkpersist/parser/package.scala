package sparkpersist

/**
 * The SQL statements Spark's grammar lacks for shards, `DESCRIBE HISTORY` and `RESTORE TABLE`,
 * recognised in front of Spark's parser (`extensions.injectParser`) and rewritten into the SQL that
 * does them (a query of `persist.<shard>.history`, a `CALL` of `system.restore`); every other
 * statement goes to Spark's parser unchanged. No grammar of Spark's is copied.
 *
 * Layer rule: `parser` imports `catalog`, `errors`, `plan`.
 */
package object parser
