package sparkpersist.parser

/** A statement the persist parser recognises ([[PersistStatements]]); `table` is the name's parts, unquoted. */
sealed trait PersistStatement

/** `DESCRIBE HISTORY <table> [LIMIT n]`. */
final case class DescribeHistory(table: Seq[String], limit: Option[Int]) extends PersistStatement

/** `RESTORE [TABLE] <table> [TO] VERSION AS OF <n>`. */
final case class RestoreToVersion(table: Seq[String], version: Long) extends PersistStatement

/** `RESTORE [TABLE] <table> [TO] TIMESTAMP AS OF <expression>`: `timestamp` is the expression's SQL text. */
final case class RestoreToTimestamp(table: Seq[String], timestamp: String) extends PersistStatement
