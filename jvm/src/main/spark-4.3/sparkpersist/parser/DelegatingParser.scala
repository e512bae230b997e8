package sparkpersist.parser

import org.apache.spark.sql.catalyst.parser.{ParserInterface, SqlStatementSplitResult, TemporalIdentifier}

/**
 * Spark 4.3's `ParserInterface` handed to `delegate`: the methods every line has, and the two 4.3
 * adds, `splitStatements` (abstract) and `parseTemporalTableIdentifier` (a default Spark's own
 * parser overrides).
 */
abstract class DelegatingParser(delegate: ParserInterface) extends ParserDelegation(delegate) {
  override def parseTemporalTableIdentifier(sqlText: String): TemporalIdentifier =
    delegate.parseTemporalTableIdentifier(sqlText)
  override def splitStatements(sqlText: String): SqlStatementSplitResult = delegate.splitStatements(sqlText)
}
