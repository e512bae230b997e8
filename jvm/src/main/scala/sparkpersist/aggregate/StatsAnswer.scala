package sparkpersist.aggregate

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, UnsafeProjection}
import org.apache.spark.sql.catalyst.plans.logical.{LeafNode, LogicalPlan, Statistics}
import org.apache.spark.sql.execution.{LeafExecNode, SparkPlan, SparkStrategy}

import sparkpersist.scan.{ScanReport, ScanReports}

/**
 * An aggregate over a shard answered entirely from statistics: every part the query would read
 * was ruled out or answered ([[AnswerAggregatesFromStats]]), so its result `rows` are known when
 * the plan is optimized. Planned as [[StatsAnswerExec]], which returns them without a Spark job
 * and records `report`, the shard's scan report (parts answered, ruled out, none read).
 */
final case class StatsAnswer(output: Seq[Attribute], rows: Seq[InternalRow], report: ScanReport) extends LeafNode {
  override def computeStats(): Statistics = Statistics(sizeInBytes = BigInt(math.max(1, rows.size) * 64L))
  override def simpleString(maxFields: Int): String = s"StatsAnswer ${report.shard} ${StatsAnswer.describe(report)}"
}

object StatsAnswer {
  def describe(report: ScanReport): String =
    s"parts: 0/${report.metrics.partsTotal} answered from stats: ${report.metrics.partsFromStats} " +
      s"pruned: ${report.metrics.partsPruned}"
}

/** [[StatsAnswer]]'s rows: collected on the driver as they are, or as one partition when a parent needs an RDD. */
final case class StatsAnswerExec(output: Seq[Attribute], rows: Seq[InternalRow], report: ScanReport) extends LeafExecNode {
  @transient private lazy val unsafeRows: Array[InternalRow] = {
    val project = UnsafeProjection.create(schema)
    rows.map(r => project(r).copy(): InternalRow).toArray
  }

  private def recorded(): Array[InternalRow] = {
    ScanReports.record(session, this, report)
    unsafeRows
  }

  override def executeCollect(): Array[InternalRow] = recorded()
  override def executeTake(limit: Int): Array[InternalRow] = recorded().take(limit)
  override def executeTail(limit: Int): Array[InternalRow] = recorded().takeRight(limit)
  override protected def doExecute(): RDD[InternalRow] = sparkContext.parallelize(recorded().toSeq, 1)
  override def simpleString(maxFields: Int): String = s"StatsAnswer ${report.shard} ${StatsAnswer.describe(report)}"
}

/** Plans [[StatsAnswer]]. */
object StatsAnswerStrategy extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case StatsAnswer(output, rows, report) => StatsAnswerExec(output, rows, report) :: Nil
    case _ => Nil
  }
}
