package sparkpersist

import org.apache.spark.sql.SparkSessionExtensions

import sparkpersist.aggregate.{AnswerAggregatesFromStats, StatsAnswerStrategy}
import sparkpersist.catalyst.{DeleteWholePartsRule, FilterMergeTarget, MzNowFunction, PersistOverwrites, PinQueryTime, PrunePersistParts}
import sparkpersist.parser.PersistParser
import sparkpersist.stream.StreamFilters

/**
 * The `spark.sql.extensions` entry point:
 * `--conf spark.sql.extensions=sparkpersist.PersistExtensions`. It registers `mz_now()`, the
 * analyzer rule that fixes the times a query reads ([[PinQueryTime]]), the optimizer rule that
 * prunes the parts of persist scans ([[PrunePersistParts]]) and, after it, the one that answers
 * aggregates from the statistics of whole parts ([[AnswerAggregatesFromStats]]; the planner
 * strategy for the answers that need no read, [[StatsAnswerStrategy]]), and the one that
 * turns overwrites of shards into retractions and inserts ([[PersistOverwrites]]), and the one
 * that deletes whole parts without reading them ([[DeleteWholePartsRule]]), and the one that reads
 * only the target rows a small MERGE source can match ([[FilterMergeTarget]]). In front of Spark's
 * parser it reads `DESCRIBE HISTORY` and `RESTORE TABLE` ([[PersistParser]]).
 */
class PersistExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    extensions.injectFunction(MzNowFunction.description)
    extensions.injectParser((_, delegate) => new PersistParser(delegate))
    extensions.injectOptimizerRule(_ => PrunePersistParts)
    extensions.injectOptimizerRule(_ => AnswerAggregatesFromStats)
    extensions.injectPlannerStrategy(_ => StatsAnswerStrategy)
    extensions.injectOptimizerRule(_ => DeleteWholePartsRule)
    extensions.injectOptimizerRule(_ => FilterMergeTarget)
    extensions.injectPostHocResolutionRule(_ => StreamFilters)
    extensions.injectPostHocResolutionRule(_ => PersistOverwrites)
    extensions.injectPostHocResolutionRule(_ => PinQueryTime)
  }
}
