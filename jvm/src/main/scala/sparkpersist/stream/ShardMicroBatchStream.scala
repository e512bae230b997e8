package sparkpersist.stream

import org.apache.spark.internal.Logging
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal}
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming.{MicroBatchStream, Offset, ReadLimit, SupportsTriggerAvailableNow}
import org.apache.spark.sql.types.{StructType, TimestampType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.apache.spark.sql.vectorized.ColumnarBatch

import sparkpersist.errors.PersistErrors
import sparkpersist.interpret.{MzNow, MzNowSpec}
import sparkpersist.plan.{AsOf, AsOfSetting, PartPruning, PartSelection, PushdownMode, ScanPlan, ScanRequest, TableView}
import sparkpersist.scan.PersistScan
import sparkpersist.shard.{ShardHandle, ShardState}

/**
 * A streaming read of one shard (`spark.readStream.table("persist.events")`), in micro-batches
 * whose offsets are the shard's frontiers ([[ShardOffset]]):
 *
 *  - the first micro-batch is the snapshot as of the starting as-of ([[StreamReadOptions]]):
 *    what a batch read of the same table as of that time returns;
 *  - each later one, from offset `f` to `u`, the updates with `f <= time < u`: of the updates
 *    view `(data…, time, diff)` rows; of the snapshot view the inserted rows, which requires the
 *    updates to be inserts (an append-only shard): a retraction fails the query, pointing to the
 *    updates view.
 *
 * Each micro-batch is read by a [[PersistScan]] (the batch read path: part readers, packing,
 * columnar reads, soft checks, scan reports). Its parts are pruned by the filter the query
 * applies directly to the stream ([[StreamFilters]]), with `mz_now()` ranging over
 * `[asOf, +inf)`, where asOf = the micro-batch's end offset - 1: a part is skipped only if the
 * filter is false or null, without error, now and at every later time (seed 000). Rows are then
 * filtered by Spark with `mz_now()` = that asOf (see [[sparkpersist.catalyst.PrunePersistParts]]).
 *
 * History below the shard's `since` may be compacted: an offset `f <= since` cannot be continued
 * ([[OffsetBelowSince]]). Rate limiting counts the shard's batches ([[ReadMaxBatches]]).
 */
final class ShardMicroBatchStream(
    shard: ShardHandle,
    view: TableView,
    schema: StructType,
    condition: Option[Expression],
    options: StreamReadOptions) extends MicroBatchStream with SupportsTriggerAvailableNow with Logging {

  private val started = shard.state
  private val shardId: String = started.shardId

  /** The frontier a `Trigger.AvailableNow` query stops at (fixed when it starts). */
  @volatile private var availableNow: Option[Long] = None

  /** The shard's upper when offsets were last asked for (what [[reportLatestOffset]] reports). */
  @volatile private var lastSeenUpper: Option[Long] = None

  /**
   * The last micro-batch planned: Spark may plan one micro-batch more than once (a `foreachBatch`
   * sink plans its frame again); its parts are decided, and its scan reported, once.
   */
  @volatile private var lastPlanned: Option[((Offset, Offset), Array[InputPartition])] = None

  override def initialOffset(): Offset = ShardOffset(shardId, None)

  override def deserializeOffset(json: String): Offset = {
    val offset = ShardOffset.fromJson(json)
    if (offset.shardId != shardId) throw new OffsetOfOtherShard(shard.name, offset.shardId, shardId)
    offset
  }

  override def getDefaultReadLimit: ReadLimit = options.readLimit

  override def prepareForTriggerAvailableNow(): Unit = availableNow = Some(shard.state.upper)

  override def latestOffset(): Offset =
    throw new UnsupportedOperationException("a shard stream is asked for offsets with a read limit")

  /**
   * The end of the next micro-batch from `start`, or `start` (null before the snapshot) when
   * there is nothing to read yet.
   */
  override def latestOffset(start: Offset, limit: ReadLimit): Offset = {
    val state = shard.state
    val complete = availableNow.fold(state.upper)(math.min(_, state.upper))
    lastSeenUpper = Some(state.upper)
    start.asInstanceOf[ShardOffset].upper match {
      case None =>
        options.startingAsOf match {
          case Some(t) => ShardOffset(shardId, Some(AsOf.check(state, t, ShardMicroBatchStream.StartingAsOf) + 1))
          case None if complete > 0 => ShardOffset(shardId, Some(complete))
          case None => null
        }
      case Some(from) =>
        checkSince(state, from)
        val end = limit match {
          case ReadMaxBatches(n) =>
            state.batches.iterator.map(_.upper).filter(_ > from).take(n).toSeq.lastOption.fold(from)(math.min(_, complete))
          case _ => complete
        }
        if (end > from) ShardOffset(shardId, Some(end)) else start
    }
  }

  override def reportLatestOffset(): Offset = lastSeenUpper.filter(_ > 0).map(u => ShardOffset(shardId, Some(u))).orNull

  /**
   * The partitions of the micro-batch `(start, end]`: of the [[PersistScan]] of its updates (or
   * of the snapshot, for the first), each carrying that scan's reader factory.
   */
  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] =
    lastPlanned.collect { case (range, partitions) if range == (start, end) => partitions }.getOrElse {
      val partitions = plan(start, end)
      lastPlanned = Some((start, end) -> partitions)
      partitions
    }

  private def plan(start: Offset, end: Offset): Array[InputPartition] = {
    val spark = SparkSession.active
    val state = shard.state
    StreamSchemaCheck.requireUnchanged(shard.name, schema, started.schema, state.schema)
    val to = end.asInstanceOf[ShardOffset]
    val asOf = to.asOf
    val from = start.asInstanceOf[ShardOffset].upper match {
      case None =>
        AsOf.check(state, asOf, ShardMicroBatchStream.StartingAsOf)
        Long.MinValue
      case Some(f) =>
        checkSince(state, f)
        if (view == TableView.Snapshot) checkInsertsOnly(state, f, asOf)
        f
    }
    val scan = new PersistScan(spark, ScanPlan(spark, shard, state, view, Some(asOf),
      selection(state, asOf, PushdownMode.of(spark.sessionState.conf)), from), schema)
    val factory = scan.createReaderFactory()
    scan.planInputPartitions().map(p => ScanPartition(p, factory): InputPartition)
  }

  override def createReaderFactory(): PartitionReaderFactory = ScanPartitionReaderFactory

  override def commit(end: Offset): Unit = ()

  override def stop(): Unit = ()

  override def toString: String = s"ShardMicroBatchStream(${shard.name}${view.suffix.fold("")("." + _)})"

  /**
   * The parts a micro-batch as of `asOf` reads: ruled out only when the condition is false or null
   * and error-free for `mz_now()` anywhere in `[asOf, +inf)`. Soft mode verifies skipped parts
   * against the condition as Spark filters the rows, with `mz_now()` = asOf.
   */
  private def selection(state: ShardState, asOf: Long, mode: PushdownMode): PartSelection =
    condition match {
      case Some(c) if mode != PushdownMode.Off =>
        val nowMicros = Math.multiplyExact(asOf, 1000L)
        val checked = c.transform { case MzNow() => Literal(nowMicros, TimestampType) }
        PartPruning.select(c, state.schema, MzNowSpec.since(nowMicros), mode, checked)
      case _ => PartSelection.All
    }

  /** Fails when the history the stream continues from was compacted: updates from `from` on must be distinct. */
  private def checkSince(state: ShardState, from: Long): Unit =
    if (from <= state.since) throw new OffsetBelowSince(shard.name, from, state.since, state.upper)

  private def checkInsertsOnly(state: ShardState, from: Long, asOf: Long): Unit =
    state.parts.find(p => p.hasRetractions && p.maxTime >= from && p.minTime <= asOf).foreach { p =>
      throw PersistErrors.unsupported(s"Cannot stream shard '${shard.name}' as rows", s"the updates at times " +
        s"[$from, $asOf] include retractions (part ${p.key}). Stream its updates instead, as (data…, time, diff) " +
        s"rows: spark.readStream.table(\"<catalog>.${shard.name}.updates\").")
    }
}

object ShardMicroBatchStream {
  /** How a stream picks the as-of of its first micro-batch ([[StreamReadOptions.StartingAsOf]]). */
  private val StartingAsOf = AsOfSetting(s"option ${StreamReadOptions.StartingAsOf}", "set it to 'latest'",
    s"set option ${StreamReadOptions.StartingAsOf} to 'latest'")

  /**
   * The stream of `view` of `shard`, with the filter of `request` and the read `options`. It keeps
   * nothing in its checkpoint location: offsets say all there is to resume.
   */
  def apply(shard: ShardHandle, view: TableView, schema: StructType, request: ScanRequest,
      options: CaseInsensitiveStringMap): ShardMicroBatchStream =
    new ShardMicroBatchStream(shard, view, schema, request.condition, StreamReadOptions.parse(shard.name, options))
}

/** A partition of a micro-batch's [[PersistScan]], with the reader factory that scan made for it. */
final case class ScanPartition(partition: InputPartition, factory: PartitionReaderFactory) extends InputPartition {
  override def preferredLocations(): Array[String] = partition.preferredLocations()
}

/** Reads each [[ScanPartition]] with its own scan's factory: micro-batches differ in mode and as-of. */
object ScanPartitionReaderFactory extends PartitionReaderFactory {
  private def of(p: InputPartition): ScanPartition = p.asInstanceOf[ScanPartition]

  override def createReader(p: InputPartition): PartitionReader[InternalRow] = of(p).factory.createReader(of(p).partition)

  override def createColumnarReader(p: InputPartition): PartitionReader[ColumnarBatch] =
    of(p).factory.createColumnarReader(of(p).partition)

  override def supportColumnarReads(p: InputPartition): Boolean = of(p).factory.supportColumnarReads(of(p).partition)
}
