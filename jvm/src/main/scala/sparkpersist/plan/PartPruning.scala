package sparkpersist.plan

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeMap, Expression}
import org.apache.spark.sql.internal.SQLConf

import sparkpersist.PersistConf
import sparkpersist.interpret.{Direction, Interpreter, MzNowSpec, PartDecision, PartFilter, ResultSpec, UdfTable}
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.PartMeta

/**
 * Turns the filter of a [[ScanRequest]] into the scan's [[PartSelection]]: the condition is
 * compiled once ([[PartFilter]]) and each part is kept iff its statistics admit a row for which
 * the condition is true or raises, and proven true when they admit only rows for which it is
 * true. A part without statistics is kept, undecided. Parts read from a columnar
 * rollup are decided a segment at a time first ([[SegmentSkipping]]): the segments of a scan's
 * parts are decided before its parts, so only the kept segments' stats are read.
 */
object PartPruning {

  def select(condition: Expression, schema: ShardSchema, asOf: Long, mode: PushdownMode): PartSelection =
    select(condition, schema, MzNowSpec.at(Math.multiplyExact(asOf, 1000L)), mode, condition)

  /**
   * The selection of a read over which `mz_now()` ranges over `mzNow` ([[MzNowSpec]]): a part is
   * ruled out only if `condition` is false or null, error-free, for every value of it. `checked`
   * is the condition soft mode verifies row by row: `condition` with `mz_now()` fixed to one
   * value of the range.
   */
  def select(condition: Expression, schema: ShardSchema, mzNow: ResultSpec, mode: PushdownMode,
      checked: Expression): PartSelection = {
    val decision = decide(condition, schema, mzNow)
    // Soft mode checks skipped parts in the reader, where Python cannot run: it drops conjuncts
    // calling Python (SoftCheck.checkable), so its decision must not use them either.
    val python = mode != PushdownMode.Soft && Interpreter.tabledCalls(condition, monotoneUdfs).nonEmpty
    // The decision that ran (the two-pass one when Python functions are called), for its segment counts.
    val ran = new java.util.concurrent.atomic.AtomicReference(decision)
    val among = (parts: IndexedSeq[PartMeta]) => {
      val chosen = if (python) decideAmong(parts, condition, schema, mzNow) else decision
      ran.set(chosen)
      chosen.prepare(parts)
      (p: PartMeta) => p.stats.fold[PartDecision](PartDecision.Undecided)(chosen.decision)
    }
    PartSelection(Some(checked), mode, among, () => ran.get.segments)
  }

  /**
   * The part decision of one scan: `condition` compiled once, deciding segments of parts first,
   * `vectorized` or not ([[PersistConf.VectorizedDecision]]).
   */
  def decide(condition: Expression, schema: ShardSchema, mzNow: ResultSpec,
      udfTable: UdfTable = UdfTable.Empty,
      vectorized: Boolean = PersistConf.VectorizedDecision.get(SQLConf.get)): SegmentSkipping =
    new SegmentSkipping(
      PartFilter.compile(condition, columnIds(condition, schema), schema, mzNow, monotoneUdfs, udfTable, vectorized).decide)

  /**
   * The decision over `parts` of a condition calling declared monotone Python functions, in two
   * passes: the first records the points at which the functions are needed (they answer
   * anything), [[UdfProbes]] evaluates them in a Spark job, the second decides with the values.
   */
  private def decideAmong(parts: IndexedSeq[PartMeta], condition: Expression, schema: ShardSchema,
      mzNow: ResultSpec): SegmentSkipping = {
    val recording = new UdfTable.Recording
    val first = decide(condition, schema, mzNow, recording)
    first.prepare(parts)
    parts.foreach(_.stats.foreach(first.admits))
    decide(condition, schema, mzNow, UdfProbes.evaluate(SparkSession.active, recording))
  }

  /** The functions declared monotone (`spark.sparkpersist.udf.monotone`), by lower-case name. */
  private def monotoneUdfs: Map[String, Direction] =
    PersistConf.MonotoneUdfs.get(SQLConf.get).getOrElse(Map.empty).map { case (name, dir) =>
      name -> (if (dir == "down") Direction.Down else Direction.Up)
    }

  /** The stable column id each attribute of the condition reads (by name: a table's columns are unique). */
  private def columnIds(condition: Expression, schema: ShardSchema): AttributeMap[Int] =
    AttributeMap(condition.references.toSeq.flatMap { (a: Attribute) =>
      schema.column(a.name).map(c => a -> c.id)
    })
}
