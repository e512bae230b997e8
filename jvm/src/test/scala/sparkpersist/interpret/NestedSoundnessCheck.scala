package sparkpersist.interpret

import scala.util.control.NonFatal

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.util.{ArrayData, MapData}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._

import sparkpersist.interpret.NestedSoundnessGen.{NestedCase, NestedPart}
import sparkpersist.interpret.SoundnessCheck.Outcome
import sparkpersist.stats.{PartStats, StatsCollector}

/**
 * The soundness property over nested columns (see [[SoundnessCheck]]): every subexpression's
 * spec, from stats collected by the writer's own collectors, admits what Spark's evaluator
 * gives for each row. Structs, arrays and maps are checked all the way in: each field, the size,
 * every element, key and value against their pieces of the spec.
 */
final class NestedSoundnessCheck(spark: SparkSession) {

  private val attrs = NestedSoundnessGen.columns.map { case (n, t) => AttributeReference(n, t)() }
  private val analyzed = new Analyzed(spark, attrs)

  def check(c: NestedCase, ansi: Boolean): Outcome =
    (try Some(analyzed(c.sql, ansi)) catch { case NonFatal(_) => None }) match {
      case None => Outcome(analyzed = false, 0, 0, pruned = 0, Nil, Map.empty)
      case Some(condition) =>
        SQLConf.withExistingConf(spark.sessionState.conf) {
          c.parts.map(checkCondition(c, _, condition)).reduce(_ ++ _)
        }
    }

  private def checkCondition(c: NestedCase, np: NestedPart, condition: Expression): Outcome = {
    val part = np.part
    val stats = partStats(np)
    val specs = attrs.indices.map(i => new PartSpecs(i, attrs(i).dataType)(stats)).toArray
    val mzSpec = if (part.mzSince) MzNowSpec.since(part.mzNow) else MzNowSpec.at(part.mzNow)
    val slotOf = (a: Attribute) => Some(attrs.indexWhere(_.exprId == a.exprId)).filter(_ >= 0)
    val rows = for (r <- part.rows; mz <- part.mzValues) yield new GenericInternalRow((r :+ mz).toArray)
    val violations = Seq.newBuilder[String]
    var checked = 0
    condition.foreach { sub =>
      val spec = Interpreter.compile(analyzed.withMzNow(sub), slotOf, mzSpec).eval(specs)
      val bound = BindReferences.bindReference(sub, attrs :+ analyzed.mz)
      rows.foreach { row =>
        val concrete = try scala.util.Right(bound.eval(row)) catch { case NonFatal(e) => scala.util.Left(e) }
        val admitted = concrete match {
          case scala.util.Left(_) => spec.fallible
          case scala.util.Right(v) => NestedSoundnessCheck.admits(v, spec, sub.dataType)
        }
        checked += 1
        if (!admitted) {
          violations += s"${sub.sql} (${sub.getClass.getSimpleName}) gave " +
            concrete.fold(e => s"error ${e.getClass.getSimpleName}: ${e.getMessage.take(120)}", String.valueOf(_)) +
            s" but its spec is $spec\n  predicate: ${c.sql}\n  stats: ${stats.columns}"
        }
      }
    }
    val root = Interpreter.compile(analyzed.withMzNow(condition), slotOf, mzSpec).eval(specs)
    Outcome(analyzed = true, checked, 1, pruned = if (root.mayBeTrue || root.mayFail) 0 else 1,
      violations.result(), Map.empty)
  }

  /** The part's stats as the writer collects them (its collectors, its bound length). */
  private def partStats(np: NestedPart): PartStats = {
    val rows = np.part.rows
    val columns = attrs.indices.map { i =>
      val collector = StatsCollector.forType(attrs(i).dataType, np.boundChars)
      rows.foreach(r => collector.update(InternalRow.fromSeq(r), i))
      i -> collector.result()
    }
    PartStats(rows.size, 0L, columns.toMap)
  }
}

object NestedSoundnessCheck {
  import CollectionSpec._

  /** Whether the concrete value `v` (null for SQL NULL) of type `dt` is admitted by `spec`. */
  def admits(v: Any, spec: ResultSpec, dt: DataType): Boolean =
    if (v == null) spec.nullable
    else spec.values match {
      case Values.Empty => false
      case nested: Values.Nested => inside(v, nested, dt)
      case _ => ValueOrdering.of(dt).forall(spec.mayContain(v, _))
    }

  private def inside(v: Any, nested: Values.Nested, dt: DataType): Boolean = dt match {
    case s: StructType =>
      val row = v.asInstanceOf[InternalRow]
      nested.fields.forall { case (name, f) =>
        val i = s.fieldIndex(name)
        admits(row.get(i, s(i).dataType), f, s(i).dataType)
      }
    case a: ArrayType =>
      val array = v.asInstanceOf[ArrayData]
      admitsSize(array.numElements(), nested) &&
        all(array, a.elementType, piece(nested, Element))
    case m: MapType =>
      val map = v.asInstanceOf[MapData]
      admitsSize(map.numElements(), nested) &&
        all(map.keyArray(), m.keyType, piece(nested, Key)) &&
        all(map.valueArray(), m.valueType, piece(nested, Value))
    case _ => true
  }

  private def admitsSize(n: Int, nested: Values.Nested): Boolean =
    Values.mayContain(sizes(nested), n, ValueOrdering.of(IntegerType).get)

  private def all(array: ArrayData, dt: DataType, spec: ResultSpec): Boolean =
    (0 until array.numElements()).forall(i => admits(if (array.isNullAt(i)) null else array.get(i, dt), spec, dt))
}
