package sparkpersist.interpret

import scala.util.control.NonFatal

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{AttributeMap, AttributeReference, BindReferences, GenericInternalRow}
import org.apache.spark.sql.internal.SQLConf

import sparkpersist.interpret.SoundnessGen.Case

/**
 * Both proofs of [[PartFilter.decide]] against Spark's evaluator: on a random predicate and
 * part, a part ruled out holds no row for which Spark's evaluation is true or an error, and a part
 * proven true holds no row for which it is false, null or an error. Checked with and without the
 * vectorized decision, on every row of the part at every `mz_now()` value it admits. Shared by
 * `ProvenTrueSuite` and `InterpretBench truth` (in `make soak`).
 */
final class DecisionCheck(spark: SparkSession) {
  import DecisionCheck._

  private val attrs = SoundnessGen.columns.map { case (n, t) => AttributeReference(n, t)() }
  private val analyzed = new Analyzed(spark, attrs)
  private val stats = new SoundnessCheck(spark)
  private val ids = AttributeMap(attrs.zip(VectorFilterSuite.genSchema.columns.map(_.id)))

  /** Checks one case under the given ANSI mode; a predicate Spark does not analyze counts nothing. */
  def check(c: Case, ansi: Boolean): Tally = {
    val tally = new Tally
    (try Some(analyzed(c.sql, ansi, c.zone)) catch { case NonFatal(_) => None }).foreach { withMz =>
      SQLConf.withExistingConf(spark.sessionState.conf) {
        val condition = analyzed.withMzNow(withMz)
        val bound = BindReferences.bindReference(withMz, attrs :+ analyzed.mz)
        c.parts.foreach { pc =>
          val part = VectorFilterSuite.byId(stats.partStats(pc, c.zone))
          val mz = if (pc.part.mzSince) MzNowSpec.since(pc.part.mzNow) else MzNowSpec.at(pc.part.mzNow)
          for (vectorized <- Seq(true, false)) {
            val decision = PartFilter.compile(condition, ids, VectorFilterSuite.genSchema, mz, vectorized = vectorized)
              .decide(part)
            tally.parts += 1
            if (decision != PartDecision.Undecided) {
              if (decision == PartDecision.ProvenTrue) tally.provenTrue += 1 else tally.ruledOut += 1
              for (r <- pc.part.rows; m <- pc.part.mzValues) {
                val result = try bound.eval(new GenericInternalRow((r :+ m).toArray)) catch { case NonFatal(e) => e }
                tally.checked += 1
                val admitted = if (decision == PartDecision.ProvenTrue) result == true else result == null || result == false
                if (!admitted) tally.violations += s"${c.sql}: ${name(decision)} (vectorized=$vectorized), " +
                  s"but row ${r.mkString(", ")} (mz $m) gives $result; zone ${c.zone}; stats $part"
              }
            }
          }
        }
      }
    }
    tally
  }
}

object DecisionCheck {
  /** Parts decided, proven true and ruled out, (row, decided part) checks, and the violations. */
  final class Tally {
    var parts, provenTrue, ruledOut, checked = 0L
    val violations = scala.collection.mutable.ArrayBuffer.empty[String]

    def add(o: Tally): Unit = {
      parts += o.parts; provenTrue += o.provenTrue; ruledOut += o.ruledOut; checked += o.checked
      violations ++= o.violations
    }

    override def toString: String =
      s"$parts part decisions: $provenTrue proven true, $ruledOut ruled out; $checked (row, decided part) checks"
  }

  private def name(decision: PartDecision): String = decision.toString
}
