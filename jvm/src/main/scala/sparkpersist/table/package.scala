package sparkpersist

/**
 * A table handle with delta-spark's names: [[sparkpersist.table.ShardTable]] (`forName`, `forPath`,
 * `delete`, `update`, `merge` and its clause builders, `history`, `restoreToVersion`, `compact`,
 * `gc`, ...). Statements are Spark's own logical plans over the persist relation, so they are
 * planned and committed exactly as the same SQL statement.
 *
 * Layer rule: `table` imports `catalog`, `compact`, `errors`, `org.apache.spark.sql.sparkpersist`, `shard`.
 */
package object table
