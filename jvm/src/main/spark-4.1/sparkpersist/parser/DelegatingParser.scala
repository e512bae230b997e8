package sparkpersist.parser

import org.apache.spark.sql.catalyst.parser.ParserInterface

/** Spark 4.1's `ParserInterface` (as 4.2's) handed to `delegate`: the methods every line has, no more. */
abstract class DelegatingParser(delegate: ParserInterface) extends ParserDelegation(delegate)
