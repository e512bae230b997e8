package sparkpersist.interpret

import scala.util.control.NonFatal

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StringType
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.interpret.SoundnessGen.{Case, PartCase}
import sparkpersist.stats.{CastStatsCollector, ColumnStats, MembershipFilter, PartStats}

/**
 * The soundness property: for a random predicate and a random part, every subexpression's
 * abstract [[ResultSpec]] (from the part's own stats) admits what Spark's evaluator concretely
 * gives for each row: the value, null, or an exception. Shared by the test suite and the bench.
 */
final class SoundnessCheck(spark: SparkSession) {
  import SoundnessCheck._

  private val attrs = SoundnessGen.columns.map { case (n, t) => AttributeReference(n, t)() }
  private val analyzed = new Analyzed(spark, attrs)

  /** Checks one case under the given ANSI mode. */
  def check(c: Case, ansi: Boolean): Outcome =
    (try Some(analyzed(c.sql, ansi, c.zone)) catch { case NonFatal(_) => None }) match {
      case None => Outcome(analyzed = false, 0, 0, pruned = 0, Nil, Map.empty)
      case Some(condition) =>
        SQLConf.withExistingConf(spark.sessionState.conf) {
          c.parts.map(checkCondition(c, _, condition)).reduce(_ ++ _)
        }
    }

  private def checkCondition(c: Case, pc: PartCase, condition: Expression): Outcome = {
    val stats = partStats(pc, c.zone)
    val specs = attrs.indices.map(i => new PartSpecs(i, attrs(i).dataType)(stats)).toArray
    val mzSpec = if (pc.part.mzSince) MzNowSpec.since(pc.part.mzNow) else MzNowSpec.at(pc.part.mzNow)
    val rows = for (r <- pc.part.rows; mz <- pc.part.mzValues) yield new GenericInternalRow((r :+ mz).toArray)
    SoundnessCheck.checkRows(analyzed, condition, specs, mzSpec, rows,
      s"  predicate: ${c.sql}\n  zone ${c.zone}, mz ${pc.part.mzNow} since=${pc.part.mzSince}\n  stats: ${stats.columns}",
      (i, lookup) => Some(new MemberSpecs(i, lookup)(stats)))
  }

  /**
   * Stats of the part as the writer would collect them (optionally truncating strings; the
   * string column's cast stats in the case's zone, as the writer collects them by default), keyed
   * by the column's position in [[SoundnessGen.columns]].
   */
  def partStats(c: PartCase, zone: String): PartStats = {
    val columns = attrs.indices.filterNot(c.dropStats).map { i =>
      val dt = attrs(i).dataType
      val values = c.part.rows.map(_(i)).filter(_ != null)
      val stats = if (values.isEmpty) ColumnStats(c.part.rows.size, None, None) else {
        val ord = ValueOrdering.of(dt).get
        val (lo, hi) = (values.min(ord), values.max(ord))
        if (dt == StringType && c.truncateStrings) truncated(values.size, c.part.rows.size, lo, hi)
        else ColumnStats(c.part.rows.size - values.size, Some(lo), Some(hi))
      }
      val withCasts = if (dt != StringType) stats else {
        val casts = new CastStatsCollector(zone)
        values.foreach(v => casts.add(v.asInstanceOf[UTF8String]))
        stats.copy(casts = casts.result())
      }
      i -> (if (!MembershipFilter.supports(dt)) withCasts else withCasts.copy(members =
        Some(MembershipFilter.of(values.map(MembershipFilter.hash).distinct.sorted.toArray))))
    }
    PartStats(c.part.rows.size, 0L, columns.toMap)
  }

  private def truncated(nonNull: Int, rowCount: Int, lo: Any, hi: Any): ColumnStats = {
    def prefix(v: Any) = v.asInstanceOf[UTF8String].getBytes.take(1)
    ColumnStats(rowCount - nonNull, Some(UTF8String.fromBytes(prefix(lo))),
      Interpreter.nextPrefix(prefix(hi)).map(UTF8String.fromBytes))
  }
}

object SoundnessCheck {

  /**
   * Checks every subexpression of `condition` (analyzed by `analyzed`, over its columns then
   * `mz`) on `rows`: its spec from the column `specs` must admit Spark's concrete result. Also
   * reports whether the whole condition would skip the part. `context` ends each violation.
   */
  def checkRows(analyzed: Analyzed, condition: Expression, specs: Array[ResultSpec], mzSpec: ResultSpec,
      rows: Seq[InternalRow], context: String,
      members: (Int, MemberLookup) => Option[ResultSpec] = (_, _) => None,
      parseJson: (Int, Boolean) => Option[ResultSpec] = (_, _) => None): Outcome = {
    val attrs = analyzed.columns
    val slotOf = (a: Attribute) => Some(attrs.indexWhere(_.exprId == a.exprId)).filter(_ >= 0)
    // Point lookups and parse_json read their specs from slots after the columns'.
    val lookups = scala.collection.mutable.ArrayBuffer.empty[ResultSpec]
    def extra(s: ResultSpec): Int = { lookups += s; specs.length + lookups.size - 1 }
    val memberSlotOf = (a: Attribute, lookup: MemberLookup) => slotOf(a).flatMap(members(_, lookup)).map(extra)
    val parseJsonSlotOf = (a: Attribute, raises: Boolean) => slotOf(a).flatMap(parseJson(_, raises)).map(extra)
    def specOf(e: Expression): ResultSpec = {
      lookups.clear()
      val node = Interpreter.compile(analyzed.withMzNow(e), slotOf, mzSpec, memberSlotOf = memberSlotOf,
        parseJsonSlotOf = parseJsonSlotOf)
      node.eval(specs ++ lookups)
    }
    val violations = Seq.newBuilder[String]
    var checked = 0
    val byClass = scala.collection.mutable.Map.empty[String, (Int, Int)]
    condition.foreach { sub =>
      val spec = specOf(sub)
      val bound = BindReferences.bindReference(sub, attrs :+ analyzed.mz)
      val ord = ValueOrdering.of(sub.dataType)
      val key = sub.getClass.getSimpleName
      val (n, w) = byClass.getOrElse(key, (0, 0))
      byClass(key) = (n + 1, w + (if (spec.values.isInstanceOf[Values.Within]) 1 else 0))
      rows.foreach { row =>
        val concrete = try scala.util.Right(bound.eval(row)) catch { case NonFatal(e) => scala.util.Left(e) }
        val admitted = concrete match {
          case scala.util.Left(_) => spec.fallible
          case scala.util.Right(null) => spec.nullable
          case scala.util.Right(v) => ord.fold(spec.values != Values.Empty)(spec.mayContain(v, _))
        }
        checked += 1
        if (!admitted) {
          violations += s"${sub.sql} (${sub.getClass.getSimpleName}) gave " +
            concrete.fold(e => s"error ${e.getClass.getSimpleName}: ${e.getMessage.take(120)}", render) +
            s" on row ${render(row)} but its spec is $spec\n$context"
        }
      }
    }
    val root = specOf(condition)
    Outcome(analyzed = true, checked, 1, pruned = if (root.mayBeTrue || root.mayFail) 0 else 1, violations.result(),
      byClass.toMap)
  }

  /** The outcomes of a property's cases; a case whose predicate does not analyze is not counted. */
  final class Tally {
    var analyzed, checked, pruned = 0

    /** Adds one case; its violations. */
    def add(outcome: => Outcome): Seq[String] =
      try {
        val o = outcome
        analyzed += 1
        checked += o.checked
        pruned += o.pruned
        o.violations
      } catch {
        case NonFatal(_) => Nil
      }

    override def toString: String = s"$analyzed cases analyzed, $checked (subexpression, row) checks, $pruned parts pruned"
  }

  /** What one case checked: subexpression × row pairs, parts, parts that would be skipped. */
  final case class Outcome(analyzed: Boolean, checked: Int, parts: Int, pruned: Int,
      violations: Seq[String], withinByClass: Map[String, (Int, Int)]) {
    def ++(o: Outcome): Outcome = Outcome(analyzed, checked + o.checked, parts + o.parts,
      pruned + o.pruned, violations ++ o.violations,
      (withinByClass.keySet ++ o.withinByClass.keySet).map { k =>
        val (a, b) = withinByClass.getOrElse(k, (0, 0))
        val (x, y) = o.withinByClass.getOrElse(k, (0, 0))
        k -> (a + x, b + y)
      }.toMap)
  }

  private def render(v: Any): String = v match {
    case r: GenericInternalRow => r.values.map(render).mkString("[", ", ", "]")
    case null => "null"
    case other => s"$other: ${other.getClass.getSimpleName}"
  }
}
