package sparkpersist.interpret

import scala.util.control.NonFatal

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeMap, Expression}
import org.apache.spark.sql.types.DataType

import sparkpersist.schema.ShardSchema
import sparkpersist.stats.PartStats

/**
 * A filter condition compiled once for deciding many parts: [[keep]] is false only when the
 * condition is provably false or null, and error-free, for every row the part's statistics
 * admit; [[decide]] also tells the parts on which it is provably true and error-free. Built by [[PartFilter.compile]]; the pruning rule calls `keep` once per part. The
 * conjuncts a [[VectorFilter]] compiles are decided over the part's bounds as primitives first;
 * the interpreter decides only the parts they leave undecided.
 *
 * Thread-safe: each thread fills bounds of its own.
 */
final class PartFilter private (root: SpecNode, columns: Array[SlotSpecs], vector: Option[VectorFilter]) {
  private val bounds: ThreadLocal[sparkpersist.stats.PartBounds] =
    vector.map(v => ThreadLocal.withInitial(() => v.bounds())).orNull

  /** Whether the vectorized decision's `Undecided` is final ([[VectorFilter.whole]]). */
  private val vectorSettles: Boolean = vector.exists(_.whole)

  /** The spec of the condition over one part. */
  def spec(stats: PartStats): ResultSpec = {
    val specs = new Array[ResultSpec](columns.length)
    var i = 0
    while (i < specs.length) {
      specs(i) = columns(i)(stats)
      i += 1
    }
    root.eval(specs)
  }

  /** Whether the part may hold a row for which the condition is true or raises. */
  def keep(stats: PartStats): Boolean = decide(stats).admits

  /**
   * The three-way decision for one part ([[PartDecision]]), from the part's bounds as primitives
   * first ([[VectorFilter]]) and from the spec of the condition when they leave it open. A part the
   * vectorized decision keeps without proving it true, over the whole condition, is undecided at
   * its cost: the interpreter, judging by the same rules on the same bounds, would not prove it
   * either (if it could, the part is only read, never wrongly answered).
   */
  def decide(stats: PartStats): PartDecision =
    try {
      val decided = if (bounds == null) PartDecision.Undecided else {
        val b = bounds.get()
        b.fill(stats)
        vector.get.decide(b)
      }
      if (decided != PartDecision.Undecided || vectorSettles) decided
      else PartDecision.of(spec(stats))
    } catch {
      // A defect in the interpreter or corrupt statistics must never drop a part, nor prove one.
      case NonFatal(_) => PartDecision.Undecided
    }

  /** The stable ids of the columns the condition reads (their stats are all it looks at). */
  def columnIds: Seq[Int] = columns.toSeq.map(_.columnId).distinct
}

object PartFilter {

  /**
   * Compiles `condition` (an analyzed, boolean Catalyst expression) over the columns of a shard.
   *
   * @param columnIds the stable column id each attribute of the scanned relation reads;
   *                  attributes not in it admit any value
   * @param schema    the shard's schema (for the column types)
   * @param mzNow     the spec of `mz_now()`: [[MzNowSpec.at]] or [[MzNowSpec.since]]
   * @param monotoneUdfs user functions declared monotone, by lower-case name
   * @param udfTable     the values of the declared Python functions ([[UdfTable]])
   * @param vectorized   decide the conjuncts a [[VectorFilter]] compiles over primitives first
   */
  def compile(
      condition: Expression,
      columnIds: AttributeMap[Int],
      schema: ShardSchema,
      mzNow: ResultSpec,
      monotoneUdfs: Map[String, Direction] = Map.empty,
      udfTable: UdfTable = UdfTable.Empty,
      vectorized: Boolean = true): PartFilter = {
    // One slot per column read, per cast of a string column read, per point lookup, per parse_json,
    // per collated string column compared with constants.
    val slots = scala.collection.mutable.LinkedHashMap.empty[(Int, Any), SlotSpecs]
    def slot(a: Attribute, what: Any)(specs: (Int, DataType) => SlotSpecs): Option[Int] =
      for {
        id <- columnIds.get(a)
        column <- schema.columnById(id)
      } yield {
        val key = (id, what)
        if (!slots.contains(key)) slots(key) = specs(id, column.dataType)
        slots.keysIterator.indexOf(key)
      }
    val root = Interpreter.compile(condition, slot(_, None)(new PartSpecs(_, _)), mzNow,
      (a, c) => slot(a, c)((id, _) => new CastSpecs(id, c)),
      (a, lookup) => slot(a, lookup)((id, _) => new MemberSpecs(id, lookup)), monotoneUdfs,
      (a, raises) => slot(a, ParseJsonSlot(raises))((id, _) => new ParseJsonSpecs(id, raises)), udfTable,
      slot(_, CollatedSlot)(new CollatedSpecs(_, _)))
    new PartFilter(root, slots.values.toArray,
      if (vectorized) VectorFilter.compile(condition, columnIds, schema, mzNow) else None)
  }
}

/** The slot key of `parse_json` (`raises`) or `try_parse_json` of a column. */
private final case class ParseJsonSlot(raises: Boolean)

/** The slot key of a collated string column's bounds in its collation's order ([[CollatedSpecs]]). */
private case object CollatedSlot

/** Specs of `mz_now()`, whose values are timestamps (microseconds since the epoch). */
object MzNowSpec {
  /** A batch read as of one time. */
  def at(asOfMicros: Long): ResultSpec = ResultSpec.point(asOfMicros)

  /** A continuous read from `asOfMicros` on: `[asOf, +inf)`. */
  def since(asOfMicros: Long): ResultSpec =
    ResultSpec(nullable = false, fallible = false, Values.Within(asOfMicros, Long.MaxValue))
}
