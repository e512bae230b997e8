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
import sparkpersist.consolidate.{ConsolidationPlan, ConsolidationTask}
import sparkpersist.positional.{DroppedPositions, PositionalSnapshot}
import sparkpersist.plan.{AsOf, PartDecisions, PartPacking, PartPruning, PartSelection, PushdownMode, RuntimeDecision, RuntimeFiltering, ScanRequest, SoftCheck, TableView}
import sparkpersist.read.{PartFile, PartFileReader, PartFilters}
import sparkpersist.schema.ReservedColumns
import sparkpersist.shard.{PartMeta, ShardHandle, ShardState}

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
    options: CaseInsensitiveStringMap = CaseInsensitiveStringMap.empty())
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
   * Reads the shard's state once, fixes the as-of (the query's, else the shard's own) and the
   * part selection (from the request's filter, per [[PushdownMode]]).
   */
  override def build(): Scan = {
    val spark = SparkSession.active
    val conf = spark.sessionState.conf
    val state = request.state.orElse(request.answered.map(_.state)).getOrElse(shard.state)
    val asOf = request.asOf.map(AsOf.check(state, _)).orElse(AsOf.resolve(state, conf))
    val selection = (request.condition, asOf, PushdownMode.of(conf)) match {
      case (Some(condition), Some(t), mode) if mode != PushdownMode.Off =>
        PartPruning.select(condition, state.schema, t, mode)
      case _ => PartSelection.All
    }
    // The columns the query's filter constrains: the evidence of automatic clustering (FilterWorkload).
    val filterColumns = request.condition.toSeq.flatMap(ConstrainedColumns.of).flatMap(state.schema.column).map(_.id).toSet
    new PersistScan(spark, shard, state, view, required, asOf, selection, pushed.map(_._2).toSeq,
      stream = Some(_ => MicroBatchStreams.open(shard, view, schema, request, options)),
      answered = request.answered.fold(Set.empty[String])(_.keys), filterColumns = filterColumns)
  }
}

/**
 * A batch scan of one shard as of one time, over a part list chosen once, here: the parts whose
 * updates may be visible as of the as-of (`minTime <= asOf`) that `selection` reads. In soft
 * mode the parts the filter ruled out are read too, and verified on the way ([[SoftCheck]]).
 *
 * Snapshot reads of parts without retractions emit each update's row `diff` times, spread over
 * tasks as Spark spreads files ([[PartPacking]]). Once any read part carries
 * retractions, the snapshot is consolidated ([[Consolidation]]) in parallel by the tasks of a
 * [[ConsolidationPlan]], each merging the runs of the parts that may hold its share of the rows:
 * memory per task stays bounded by the number of runs. A snapshot whose every retraction names
 * the row it retracts by position is read as one without retractions, those rows and retractions
 * left out ([[PositionalSnapshot]]). Reads without consolidation hand Spark columnar batches when
 * they can (see `columnar`).
 */
final class PersistScan(
    spark: SparkSession,
    shard: ShardHandle,
    val state: ShardState,
    val view: TableView,
    override val readSchema: StructType,
    /** The as-of of this read; `None` when the shard holds no complete time yet. */
    val asOf: Option[Long],
    val selection: PartSelection,
    /** Filters handed to Parquet inside the parts ([[PartFilters]]); Spark re-checks them. */
    val filters: Seq[Filter] = Nil,
    /**
     * The earliest time read: a read of the updates with `from <= time <= asOf` (a micro-batch of
     * a streaming read). A snapshot view then reads inserts only: its parts must hold no retraction.
     */
    val from: Long = Long.MinValue,
    /** Opens the micro-batch stream of this table, given the checkpoint location (streaming reads). */
    stream: Option[String => MicroBatchStream] = None,
    /** The keys of the parts whose share of the query was answered from their statistics: left out. */
    answered: Set[String] = Set.empty,
    /** The ids of the columns the query's filter constrains, recorded once as workload ([[FilterWorkload]]). */
    filterColumns: Set[Int] = Set.empty)
  extends Scan with Batch with SupportsReportStatistics with SupportsRuntimeV2Filtering {

  private val visible: IndexedSeq[IndexedSeq[PartMeta]] = asOf match {
    case None => IndexedSeq.empty
    case Some(t) => PersistScan.withoutCancelled(view, from, state.batches.flatMap(_.runs)
      .map(_.parts.filter(p => p.minTime <= t && p.maxTime >= from && !answered.contains(p.key))))
  }

  /** The visible parts, run after run: what the filter decides. */
  private val candidates: IndexedSeq[PartMeta] = visible.flatten

  /**
   * The positions a snapshot read leaves out ([[PositionalSnapshot]]), when every retraction
   * visible was written with the position of the row it retracts ([[PersistConf.PositionalReads]]).
   */
  private val positional: Option[PositionalSnapshot] =
    if (view != TableView.Snapshot || from != Long.MinValue || !PersistConf.PositionalReads.get(spark.sessionState.conf) ||
      !readsPositions) None
    else PositionalSnapshot.of(shard, candidates)

  /** Whether this scan's reader could read rows' positions ([[PartFileReader.readsPositions]]). */
  private lazy val readsPositions: Boolean = PartFileReader.readsPositions(spark, state.schema)

  /**
   * Which `candidates` the filter rules out, and proves true, by position: a shard of a million
   * parts is decided without a set of its parts.
   */
  private val (ruledOut: java.util.BitSet, provenTrue: java.util.BitSet, pruningNanos: Long) = {
    val start = System.nanoTime()
    val decision = selection.decisionAmong(candidates)
    val decided = PartDecisions.decidedPositions(candidates.size, i => decision(candidates(i)),
      PersistConf.ParallelDecisionParts.get(spark.sessionState.conf))
    (decided.ruledOut, decided.provenTrue, System.nanoTime() - start)
  }

  /** Whether the session reads in soft mode: every part read, every part ruled out verified. */
  private val softMode: Boolean = PushdownMode.of(spark.sessionState.conf) == PushdownMode.Soft

  /**
   * What the scan reads: the runs of `candidates` but those at the positions `skipped`, the parts at
   * the positions `verify` marked to be verified ([[SoftCheck]]), those the filter proved true
   * marked as such (soft mode verifies them too), and the metrics. Decided when the scan is built,
   * and again when runtime filters arrive ([[filter]]).
   */
  private final class Reading(skipped: java.util.BitSet, verify: java.util.BitSet, runtimePruned: Long,
      narrows: Option[Reading] = None) {
    /** The runs of the parts this scan reads, each in run order. */
    val runs: IndexedSeq[IndexedSeq[PartMeta]] = {
      var at = 0
      visible.map { run =>
        val from = at
        at += run.size
        val first = skipped.nextSetBit(from)
        if (first < 0 || first >= at) run
        else {
          val kept = Vector.newBuilder[PartMeta]
          (first - from until run.size).foreach(i => if (!skipped.get(from + i)) kept += run(i))
          run.take(first - from) ++ kept.result()
        }
      }.filter(_.nonEmpty)
    }

    lazy val parts: IndexedSeq[PartMeta] = runs.flatten

    /** The parts read only to verify that skipping them was sound (by identity: hashing parts is costly). */
    val verified: java.util.Set[PartMeta] = partsAt(verify)

    /** The parts read on which the scan's filter is proven true. */
    val proven: java.util.Set[PartMeta] = {
      val read = provenTrue.clone().asInstanceOf[java.util.BitSet]
      read.andNot(skipped)
      partsAt(read)
    }

    val metrics: ScanMetrics = ScanMetrics(state.partCount, parts.size, state.parts.map(_.bytes).sum,
      parts.iterator.map(_.bytes).sum, partsPruned = ruledOut.cardinality, pruningNanos = pruningNanos,
      segmentsSkipped = selection.segments()._2, partsRuntimePruned = runtimePruned, partsProvenTrue = proven.size,
      partsFromStats = answered.size)

    private def partsAt(positions: java.util.BitSet): java.util.Set[PartMeta] = {
      val out = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap[PartMeta, java.lang.Boolean])
      positions.stream().forEach(i => out.add(candidates(i)))
      out
    }

    /**
     * How a consolidated snapshot splits between tasks (`None` in the other modes); a reading that
     * `narrows` another keeps its tasks and shares, over fewer parts (the reader factory, built for
     * the other, may cancel in memory: no task's retracting rows grow).
     */
    lazy val consolidation: Option[ConsolidationPlan] =
      if (mode != ReadMode.ConsolidatedSnapshot) None
      else narrows.flatMap(_.consolidation) match {
        case Some(wider) =>
          val read = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap[PartMeta, java.lang.Boolean])
          parts.foreach(read.add)
          Some(wider.restrictedTo(read.contains))
        case None => Some(ConsolidationPlan(runs, state.schema, consolidationTasks(parts)))
      }

    /** Whether every consolidation task holds few enough retracting rows to cancel them in memory ([[Cancellation]]). */
    lazy val cancelsInMemory: Boolean = consolidation.forall(_.tasks.forall(taskCancelsInMemory))

    /** The tasks of this reading, planned once: Spark asks again for each copy of the plan node. */
    lazy val inputPartitions: Array[InputPartition] = {
      def straight(files: Seq[PartFile]): Seq[InputPartition] =
        PartPacking.tasks(files, spark.sessionState.conf, leafParallelism).map(g => PartsPartition(IndexedSeq(g)))
      def partFile(part: PartMeta): PartFile =
        PartFile.of(shard.partUri(part), part, verify = verified.contains(part), provenTrue = proven.contains(part),
          visibleAsOf = if (view == TableView.Updates || part.minTime < from) None else asOf,
          dropped = positional.fold(DroppedPositions.None)(_.droppedFrom(part)),
          insertsOnly = positional.exists(_.insertsOnly(part.key)))
      consolidation match {
        case Some(plan) =>
          (plan.tasks.map(t => PartsPartition(t.runs.map(_.map(partFile)), Some(t.share),
            cancelInMemory = taskCancelsInMemory(t))) ++
            straight(plan.straight.map(partFile))).toArray
        case None => straight(parts.map(partFile)).toArray
      }
    }
  }

  /**
   * The reading of `decisions`, each the positions a decision ruled out and the mode it was made in:
   * in mode `on` they are skipped, in mode `soft` read and verified.
   */
  private def readingOf(decisions: Seq[(java.util.BitSet, PushdownMode)], runtimePruned: Long,
      narrows: Option[Reading] = None): Reading = {
    val (skipped, verify) = (new java.util.BitSet, new java.util.BitSet)
    decisions.foreach {
      case (out, PushdownMode.On) => skipped.or(out)
      case (out, PushdownMode.Soft) => verify.or(out)
      case _ =>
    }
    new Reading(skipped, verify, runtimePruned, narrows)
  }

  /** Whether `task` holds few enough retracting rows to cancel them in memory ([[PersistConf.CancelInMemoryRows]]). */
  private def taskCancelsInMemory(task: ConsolidationTask): Boolean = {
    val inMemory = PersistConf.CancelInMemoryRows.get(spark.sessionState.conf)
    inMemory > 0 && task.retractingRows <= inMemory
  }

  /** What the scan's own filter decided. */
  private val decided: Reading = readingOf(Seq(ruledOut -> selection.mode), 0)

  /** What the scan reads now: [[decided]], narrowed by runtime filters once they arrived. */
  @volatile private var reading: Reading = decided

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

  /** Read mode, fixed by the parts the scan's own filter keeps (a runtime filter keeps a subset of them). */
  val mode: ReadMode = view match {
    case TableView.Updates => ReadMode.Updates
    case _ if positional.isEmpty && decided.parts.exists(_.hasRetractions) =>
      require(from == Long.MinValue, s"a snapshot of shard '${shard.name}' from time $from on holds retractions")
      ReadMode.ConsolidatedSnapshot
    case _ => ReadMode.Snapshot
  }

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
      val admits = PartPruning.select(condition, state.schema, t, runtimeMode).admitsAmong(candidates)
      val out = new java.util.BitSet
      (0 until candidates.size).foreach(i => if (!ruledOut.get(i) && !admits(candidates(i))) out.set(i))
      reading = readingOf(Seq(ruledOut -> selection.mode, out -> runtimeMode), out.cardinality, Some(decided))
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

  /** [[PersistConf.ConsolidationTasks]], or when 0 the cluster's parallelism (more for large reads of `parts`). */
  private def consolidationTasks(parts: IndexedSeq[PartMeta]): Int = {
    val conf = spark.sessionState.conf
    PersistConf.ConsolidationTasks.get(conf) match {
      case 0 =>
        val bySize = (parts.map(_.bytes).sum + conf.filesMaxPartitionBytes - 1) / conf.filesMaxPartitionBytes
        math.max(spark.sparkContext.defaultParallelism.toLong, bySize).toInt
      case n => math.min(n, Int.MaxValue).toInt
    }
  }

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

  /** The parallelism Spark's file scans split their files for (`SparkSession.leafNodeDefaultParallelism`). */
  private def leafParallelism: Int =
    Option(spark.sessionState.conf.getConfString(SQLConf.LEAF_NODE_DEFAULT_PARALLELISM.key, null))
      .map(_.toInt).getOrElse(spark.sparkContext.defaultParallelism)

  override def createReaderFactory(): PartitionReaderFactory = readerFactory

  /** The reader of this scan's parts (it broadcasts the Hadoop configuration). */
  private lazy val reader: PartFileReader = {
    val dataColumns =
      if (mode == ReadMode.ConsolidatedSnapshot || identifiesRows) state.schema.dataSchema
      else StructType(readSchema.filterNot(f => isReserved(f.name)))
    // Positions: to leave rows out by position, and to name the source of each row a snapshot returns.
    val positions = mode == ReadMode.Snapshot && readsPositions && (positional.exists(_.rows > 0) || identifiesRows)
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

object PersistScan {
  /**
   * `runs` without the parts a visible negation cancels: a negated part ([[PartMeta.negated]]) and
   * the part whose file it negates, both visible, sum to nothing, row by row, so a snapshot read
   * (from the beginning) leaves both out, and the rest of the shard is read as if the deleted
   * parts had never been written (straight, without consolidation, when nothing else retracts).
   * The updates view shows them.
   */
  private[scan] def withoutCancelled(view: TableView, from: Long,
      runs: IndexedSeq[IndexedSeq[PartMeta]]): IndexedSeq[IndexedSeq[PartMeta]] =
    if (view != TableView.Snapshot || from != Long.MinValue) runs
    else {
      val negated = runs.iterator.flatten.filter(_.negated).map(_.fileKey).toSet
      if (negated.isEmpty) runs
      else {
        val cancelled = runs.iterator.flatten.filter(p => !p.negated && negated(p.key)).map(_.key).toSet
        runs.map(_.filterNot(p => cancelled(p.fileKey)))
      }
    }
}
