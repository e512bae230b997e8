package sparkpersist.scan

import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.connector.metric.{CustomMetric, CustomTaskMetric}
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.catalyst.expressions.And
import org.apache.spark.sql.connector.expressions.NamedReference
import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReaderFactory, Scan, ScanBuilder, Statistics, SupportsPushDownRequiredColumns, SupportsPushDownV2Filters, SupportsReportStatistics, SupportsRuntimeV2Filtering}
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.execution.WholeStageCodegenExec
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import org.apache.spark.util.LongAccumulator

import sparkpersist.cluster.{ConstrainedColumns, FilterWorkload}
import sparkpersist.PersistConf
import sparkpersist.consolidate.ConsolidationPlan
import sparkpersist.plan.{PartPruning, PushdownMode, ReadMode, RuntimeDecision, RuntimeFiltering, ScanPlan, ScanRequest, SoftCheck, TableView}
import sparkpersist.read.{PartFileReader, PartFilters}
import sparkpersist.schema.ReservedColumns
import sparkpersist.shard.{PartMeta, ShardHandle}

/**
 * Builds a [[PersistScan]] of the snapshot or updates view of a shard, pruning top-level
 * columns. A struct is read whole even when a query needs some of its fields: consolidation
 * compares whole rows, and Spark projects the fields it needs.
 *
 * Pushed predicates: those [[PartFilters]] can hand to Parquet are accepted (EXPLAIN lists them
 * as pushed), and all of them stay post-scan filters, evaluated by Spark on every row.
 *
 * A streaming read (`spark.readStream.table(...)`) builds one scan when the query starts and asks
 * it for its micro-batch stream ([[MicroBatchStreams]]; the `options` are the stream's read options).
 */
final class PersistScanBuilder(shard: ShardHandle, view: TableView, schema: StructType, request: ScanRequest,
    options: CaseInsensitiveStringMap = CaseInsensitiveStringMap.empty(),
    /** Told the plan of the scan built (a statement's write follows what its scans read). */
    onPlan: ScanPlan => Unit = _ => ())
  extends ScanBuilder with SupportsPushDownRequiredColumns with SupportsPushDownV2Filters {

  private var required: StructType = schema
  private var pushed: Array[(Predicate, Filter)] = Array.empty

  /** The columns asked for, metadata columns ([[RowIdentity]]) included as Spark asks for them. */
  override def pruneColumns(requiredSchema: StructType): Unit =
    required = StructType(requiredSchema.fields.map(f => if (RowIdentity.isMetadata(f.name)) f else schema(f.name)))

  override def pushPredicates(predicates: Array[Predicate]): Array[Predicate] = {
    val shardSchema = shard.state.schema
    pushed = predicates.flatMap(p => PartFilters.toParquet(p, shardSchema).map(p -> _))
    predicates
  }

  override def pushedPredicates(): Array[Predicate] = pushed.map(_._1)

  /**
   * Plans the read once ([[ScanPlan]]: state, as-of, visible parts and their decisions), or takes
   * the plan a rule already made for this request (aggregates from statistics answered some of its
   * parts, or a whole-part `DELETE` decided them and fell back to reading rows).
   */
  override def build(): Scan = {
    val spark = SparkSession.active
    val plan = request.planned.getOrElse(ScanPlan.of(spark, shard, view, request))
    onPlan(plan)
    // The columns the query's filter constrains: the evidence of automatic clustering (FilterWorkload).
    val filterColumns = request.condition.toSeq.flatMap(ConstrainedColumns.of).flatMap(plan.state.schema.column).map(_.id).toSet
    new PersistScan(spark, plan, required, pushed.map(_._2).toSeq,
      stream = Some(_ => MicroBatchStreams.open(shard, view, schema, request, options)), filterColumns = filterColumns)
  }
}

/**
 * The DSv2 scan of a [[ScanPlan]]: a batch scan of one shard as of one time, over the parts the
 * plan decided once. In soft mode the parts the filter ruled out are read too, and verified on
 * the way ([[SoftCheck]]).
 *
 * Snapshot reads of parts without retractions emit each update's row `diff` times, spread over
 * tasks as Spark spreads files ([[PartPacking]]). Once any read part carries
 * retractions, the snapshot is consolidated ([[Consolidation]]) in parallel by the tasks of a
 * [[ConsolidationPlan]], each merging the runs of the parts that may hold its share of the rows:
 * memory per task stays bounded by the number of runs. A snapshot whose every retraction names
 * the row it retracts by position is read as one without retractions, those rows and retractions
 * left out ([[PositionalSnapshot]]). Reads without consolidation hand Spark columnar batches when
 * they can (see `columnar`). What is read is a [[PartReading]] of the plan.
 */
final class PersistScan(
    spark: SparkSession,
    val plan: ScanPlan,
    override val readSchema: StructType,
    /** Filters handed to Parquet inside the parts ([[PartFilters]]); Spark re-checks them. */
    val filters: Seq[Filter] = Nil,
    /** Opens the micro-batch stream of this table, given the checkpoint location (streaming reads). */
    stream: Option[String => MicroBatchStream] = None,
    /** The ids of the columns the query's filter constrains, recorded once as workload ([[FilterWorkload]]). */
    filterColumns: Set[Int] = Set.empty)
  extends Scan with Batch with SupportsReportStatistics with SupportsRuntimeV2Filtering {
  import plan.{asOf, candidates, from, selection, shard, state, view}

  /** Whether the session reads in soft mode: every part read, every part ruled out verified. */
  private val softMode: Boolean = PushdownMode.of(spark.sessionState.conf) == PushdownMode.Soft

  /**
   * The reading of the plan (its skipped parts, [[ScanPlan.skipped]]; in mode `soft`, those its
   * filter ruled out read and verified) and of a runtime filter's decision, if one arrived: the
   * positions it ruled out, skipped in mode `on`, read and verified in mode `soft`.
   */
  private def readingOf(runtime: Option[(java.util.BitSet, PushdownMode)], runtimePruned: Long,
      narrows: Option[PartReading] = None): PartReading = {
    val skipped = plan.skipped.clone().asInstanceOf[java.util.BitSet]
    val verify = if (selection.mode == PushdownMode.Soft) ruledOut.clone().asInstanceOf[java.util.BitSet]
      else new java.util.BitSet
    runtime.foreach {
      case (out, PushdownMode.On) => skipped.or(out)
      case (out, PushdownMode.Soft) => verify.or(out)
      case _ =>
    }
    new PartReading(spark, plan, skipped, verify, runtimePruned, narrows)
  }

  /** The positions the plan's filter ruled out. */
  private def ruledOut: java.util.BitSet = plan.decisions.ruledOut

  /** What the scan's own filter decided. */
  private val decided: PartReading = readingOf(None, 0)

  /** What the scan reads now: [[decided]], narrowed by runtime filters once they arrived. */
  @volatile private var reading: PartReading = decided

  /** The runs of the parts this scan reads, each in run order. */
  def runs: IndexedSeq[IndexedSeq[PartMeta]] = reading.runs

  /** The parts this scan reads. */
  def parts: IndexedSeq[PartMeta] = reading.parts

  def metrics: ScanMetrics = reading.metrics

  /** How a consolidated snapshot splits between tasks (`None` in the other modes). */
  def consolidation: Option[ConsolidationPlan] = reading.consolidation

  /** Counts soft-mode violations across tasks (read by [[ScanReports]] once the query ran). */
  private val softViolations: Option[LongAccumulator] =
    if (softMode) Some(spark.sparkContext.longAccumulator(s"persist soft violations ${shard.name}")) else None

  /** Whether the scan returns metadata columns ([[RowIdentity]]): it then reads every data column. */
  private val identifiesRows: Boolean = readSchema.fieldNames.exists(RowIdentity.isMetadata)

  /** Read mode, fixed by the parts the plan's own filter keeps (a runtime filter keeps a subset of them). */
  def mode: ReadMode = plan.mode

  /** The data columns a join's runtime filter may narrow this scan by ([[RuntimeFiltering]]). */
  override def filterAttributes(): Array[NamedReference] =
    if (asOf.isEmpty || view != TableView.Snapshot) Array.empty
    else RuntimeFiltering.attributes(readSchema, state.schema.columns.map(_.name).toSet)

  /**
   * Narrows the parts read by the values a join's other side holds ([[RuntimeFiltering]]): parts
   * whose statistics admit none of them are skipped (mode `on`) or read and verified against the
   * filter and the runtime predicate together (mode `soft`); the scan's report counts them.
   */
  override def filter(predicates: Array[Predicate]): Unit = {
    val conf = spark.sessionState.conf
    val runtimeMode = PushdownMode.of(conf)
    for {
      t <- asOf if runtimeMode != PushdownMode.Off
      condition <- RuntimeFiltering.condition(predicates, readSchema)
    } {
      // A condition of its own (the join's values), decided over the candidates the plan's filter kept.
      val kept = (0 until candidates.size).filterNot(ruledOut.get)
      val runtimeOut = PartPruning.select(condition, state.schema, t, runtimeMode)
        .decideAmong(kept.map(candidates), PersistConf.ParallelDecisionParts.get(conf)).ruledOut
      val out = new java.util.BitSet
      runtimeOut.stream().forEach(j => out.set(kept(j)))
      reading = readingOf(Some(out -> runtimeMode), out.cardinality, Some(decided))
      runtime.complete = reading.parts.size == candidates.size
      if (runtimeMode == PushdownMode.Soft && !out.isEmpty) {
        // Parts proven true are proven for the scan's own filter only.
        runtime.softCheck = softViolations.map(v => new SoftCheck(shard.name, selection.condition.fold(condition)(And(_, condition)),
          reader.schema, PersistConf.SoftFailOnViolation.get(conf), v, selection.condition.getOrElse(condition)))
      }
    }
  }

  /** What the runtime filter changed for the reader factory, built before it arrives. */
  private val runtime = new RuntimeDecision

  override def toBatch: Batch = this

  /** The bytes and rows this scan reads, for Spark's planner ([[ScanStatistics]]). */
  override def estimateStatistics(): Statistics = ScanStatistics.of(parts, asOf,
    if (view == TableView.Updates) state.schema.updatesSchema else state.schema.dataSchema, readSchema,
    name => state.schema.column(name).filter(_.name == name).map(_.id))

  override def toMicroBatchStream(checkpointLocation: String): MicroBatchStream =
    stream.map(_(checkpointLocation)).getOrElse(super.toMicroBatchStream(checkpointLocation))

  override def description(): String =
    s"PersistScan ${shard.name} ${view.toString.toLowerCase(java.util.Locale.ROOT)} " +
      s"asOf=${asOf.map(_.toString).getOrElse("(empty)")} read=${mode.toString.toLowerCase(java.util.Locale.ROOT)} " +
      consolidation.fold("")(c => s"(${c.describe}) ") +
      (if (filters.isEmpty) "" else s"parquet filters: ${filters.mkString("[", ", ", "]")} ") +
      s"parts: ${metrics.partsKept}/${metrics.partsTotal} bytes: ${metrics.bytesKept}/${metrics.bytesTotal} " +
      (if (metrics.segmentsSkipped == 0) "" else s"segments skipped: ${metrics.segmentsSkipped} ") +
      (if (metrics.partsProvenTrue == 0) "" else s"proven true: ${metrics.partsProvenTrue} ") +
      (if (metrics.partsFromStats == 0) "" else s"answered from stats: ${metrics.partsFromStats} ") +
      selection.describe

  private val workloadRecorded = new java.util.concurrent.atomic.AtomicBoolean(false)

  override def planInputPartitions(): Array[InputPartition] = {
    ScanReports.record(spark, this, ScanReport(shard.name, asOf, selection.mode, metrics, softViolations,
      parts.map(_.key), parts.filter(reading.proven.contains).map(_.key)))
    if (workloadRecorded.compareAndSet(false, true)) {
      FilterWorkload.record(shard, filterColumns, metrics.partsTotal, metrics.partsKept, durable = state.schema.clusterAuto)
    }
    reading.inputPartitions.clone()
  }

  override def createReaderFactory(): PartitionReaderFactory = readerFactory

  /** The reader of this scan's parts (it broadcasts the Hadoop configuration). */
  private lazy val reader: PartFileReader = {
    val dataColumns =
      if (mode == ReadMode.ConsolidatedSnapshot || identifiesRows) state.schema.dataSchema
      else StructType(readSchema.filterNot(f => isReserved(f.name)))
    // Positions: to leave rows out by position, and to name the source of each row a snapshot returns.
    val positions = mode == ReadMode.Snapshot && plan.readsPositions && (plan.positional.exists(_.rows > 0) || identifiesRows)
    PartFileReader(spark, state.schema, dataColumns, withPositions = positions, positionsOfEveryPart = identifiesRows)
  }

  /** Built once: Spark asks again for each copy of the plan node, and before the runtime filters arrive ([[runtime]]). */
  private lazy val readerFactory: PartitionReaderFactory = {
    val softCheck = for {
      condition <- selection.condition
      violations <- softViolations
    } yield new SoftCheck(shard.name, condition, reader.schema,
      PersistConf.SoftFailOnViolation.get(spark.sessionState.conf), violations)
    val readable = filters.filter(_.references.forall(reader.schema.fieldNames.contains))
    new PersistReaderFactory(shard.name, state.schema, mode, reader, asOf.getOrElse(Long.MinValue),
      readSchema, readSchema.fields.map(f => if (RowIdentity.isMetadata(f.name)) -1 else reader.schema.fieldIndex(f.name)).toIndexedSeq,
      softCheck,
      complete = decided.parts.size == candidates.size, runtime = runtime, filters = readable,
      columnar = columnar(reader), from = from, identity = if (identifiesRows) Some(state.schema.dataSchema) else None)
  }

  override def supportedCustomMetrics(): Array[CustomMetric] = ScanMetrics.supported

  override def reportDriverMetrics(): Array[CustomTaskMetric] = metrics.taskMetrics

  /**
   * Whether the scan hands Spark columnar batches ([[PersistConf.ColumnarReads]]): reads that
   * need no row-by-row work (no consolidation, or one whose every task cancels retractions in
   * memory, [[sparkpersist.consolidate.ColumnarCancellation]]; every update of every part visible
   * as of the as-of and from `from` on, so no time filter), over columns Spark's vectorized reader
   * and whole-stage code generation take, as Spark's own Parquet scan decides.
   */
  private def columnar(reader: PartFileReader): Boolean = {
    val conf = spark.sessionState.conf
    PersistConf.ColumnarReads.get(conf) && reader.readsBatches &&
      (mode != ReadMode.ConsolidatedSnapshot || (decided.cancelsInMemory && !readsReserved)) &&
      conf.wholeStageEnabled && !WholeStageCodegenExec.isTooManyFields(conf, readSchema) &&
      asOf.forall(t => decided.parts.forall(p => p.maxTime <= t || (!p.hasRetractions && p.minTime == p.maxTime))) &&
      decided.parts.forall(_.minTime >= from)
  }

  /** Whether the scan returns `time` or `diff`. */
  private def readsReserved: Boolean = readSchema.fieldNames.exists(isReserved)

  private def isReserved(name: String): Boolean = ReservedColumns.fields.exists(_.name == name)
}
