package sparkpersist.bench

import java.io.File
import java.nio.file.Files
import java.util.UUID

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.bench.Bench.{PersistRun, arg, median, medianRun, runPersist, timedMs}
import sparkpersist.compact.{CompactOptions, CompactionResult, GcOptions, GcResult, Lifecycle}
import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{ShardHandle, ShardStore}
import sparkpersist.write.{BatchCommit, RunSpec, RunWriter}

/**
 * What compaction buys a stream of small appends. One shard gets `appends` appends of
 * `rowsPerAppend` events each (one part each), spread evenly over `days` days of update time
 * (`time` = the end of the append's interval, `event_ts` inside it, order key `event_ts`); a
 * second shard gets the same events in `largeBatches` large batches. Measured on the small-append
 * shard before and after `Lifecycle.compact` with the default settings (then GC with
 * keepVersions 1 and no grace), and on the large-batch shard: parts, state bytes (on disk and
 * read by an open), cold shard open (median of 10), the 7-day `mz_now()` window and a full scan
 * (median of `runs` alternating runs after a warm-up). Targets: after compaction the window costs
 * at most 1.2x the large-batch shard's and the open drops at least 10x; the compaction time per
 * million rows is reported.
 *
 * The appends are written by the writer's own [[RunWriter]] and [[BatchCommit]] on the driver
 * (what each `ShardWriter` task and commit does, without a Spark job per append), so building
 * 5,000 batches takes seconds, not an hour.
 *
 * `bench/runMain sparkpersist.bench.CompactionBench [appends=5000] [rowsPerAppend=200]
 * [largeBatches=50] [days=100] [runs=5]`; prints two tables and writes bench/out/compaction.json.
 */
object CompactionBench {
  private val Day = 86400000L
  private val End = 1767225600000L // 2026-01-01T00:00:00Z: the end of the newest append
  private val WindowTarget = 1.2
  private val OpenTarget = 10.0
  private val Opens = 10

  private val Struct = StructType(Seq(StructField("event_ts", TimestampType), StructField("country", StringType),
    StructField("amount", DoubleType), StructField("n", LongType)))

  final case class Shape(label: String, batches: Int, parts: Int, stateMB: Double, openReadMB: Double, openMs: Double,
      window: PersistRun, full: PersistRun)

  def main(args: Array[String]): Unit = {
    val appends = arg(args, 0, 5000)(_.toInt)
    val rowsPerAppend = arg(args, 1, 200)(_.toInt)
    val largeBatches = arg(args, 2, 50)(_.toInt)
    val days = arg(args, 3, 100)(_.toInt)
    val runs = arg(args, 4, 5)(_.toInt)
    require(appends % largeBatches == 0, "appends must be a multiple of largeBatches")
    val root = Files.createTempDirectory("compaction-bench").toFile
    val spark = Bench.persistSession("CompactionBench", root)
    try {
      val store = new ShardStore(root.toURI.toString, spark.sessionState.newHadoopConf())
      val slotMs = days * Day / appends
      val start = End - appends * slotMs
      val (_, writeMs) = timedMs {
        write(spark, store, "small", appends, 1, rowsPerAppend, start, slotMs)
        write(spark, store, "large", largeBatches, appends / largeBatches, rowsPerAppend, start, slotMs)
      }
      println(f"wrote $appends appends and $largeBatches large batches, ${appends.toLong * rowsPerAppend} rows each shard, in ${writeMs / 1e3}%.1f s")

      val before = measure(spark, store, runs, "small", "large")
      val (compaction, compactMs) = timedMs(Lifecycle.compact(spark, "small"))
      val gc = Lifecycle.gc(spark, "small", GcOptions(keepVersions = Some(1), graceMs = Some(0L)))
      val after = measure(spark, store, runs, "small", "large")

      val rows = appends.toLong * rowsPerAppend
      val shapes = Seq(before("small").copy(label = s"$appends appends"),
        after("small").copy(label = s"$appends appends, compacted"),
        after("large").copy(label = s"$largeBatches large batches"))
      val tables = report(shapes, compaction, gc, compactMs, rows, appends, rowsPerAppend, largeBatches, days, runs)
      tables.foreach(_.print())
      BenchOutput.write("compaction.json", "compaction",
        Seq("appends" -> appends, "rowsPerAppend" -> rowsPerAppend, "largeBatches" -> largeBatches, "days" -> days,
          "runs" -> runs, "windowTarget" -> WindowTarget, "openTarget" -> OpenTarget), tables: _*)
    } finally {
      spark.stop()
      FileUtils.deleteQuietly(root)
    }
  }

  /**
   * Writes `batches` batches of `slots` appends' events each: slot i holds `rowsPerSlot` events
   * evenly inside `[start + i * slotMs, start + (i + 1) * slotMs)`; a batch's updates are at the
   * end of its last slot.
   */
  private def write(spark: SparkSession, store: ShardStore, name: String, batches: Int, slots: Int, rowsPerSlot: Int,
      start: Long, slotMs: Long): Unit = {
    val shard = store.create(name, ShardSchema.fromStruct(Struct, Seq("event_ts")))
    val spec = RunSpec.forSession(spark, name, shard.state.schema, shard.newPartPath("spec").getParent, None, None)
    (0 until batches).foreach { b =>
      val first = b * slots
      val time = start + (first + slots) * slotMs - 1
      val rows = (first until first + slots).iterator.flatMap { slot =>
        (0 until rowsPerSlot).iterator.map { j =>
          val n = slot.toLong * rowsPerSlot + j
          val eventMs = start + slot * slotMs + j * slotMs / rowsPerSlot
          InternalRow(eventMs * 1000, UTF8String.fromString(if (n % 3 == 0) "US" else "DE"), (n % 1000).toDouble, n,
            time, 1L)
        }
      }
      appendBatch(shard, spec, rows)
    }
  }

  private def appendBatch(shard: ShardHandle, spec: RunSpec, rows: Iterator[InternalRow]): Unit = {
    val state = shard.state
    val commit = new BatchCommit(shard, UUID.randomUUID().toString, state.upper, "the bench's times", state.schema)
    commit.onFailureDelete(commit.commit(Seq(RunWriter.writeAll(spec.inBatchDir(commit.batchDir), 0, 0, rows))))
  }

  private def windowQuery(name: String) =
    s"SELECT count(*), sum(amount) FROM persist.$name WHERE mz_now() <= event_ts + INTERVAL 7 DAYS"

  private def fullQuery(name: String) = s"SELECT count(*), sum(amount) FROM persist.$name"

  /** Each shard's state and open time, then its queries in alternating rounds. */
  private def measure(spark: SparkSession, store: ShardStore, runs: Int, names: String*): Map[String, Shape] = {
    val measured = Bench.rounds(runs) { _ =>
      names.flatMap(n => Seq((n, "window") -> runPersist(spark, windowQuery(n), "on"),
        (n, "full") -> runPersist(spark, fullQuery(n), "on")))
    }.map { case (k, rs) => k -> medianRun(rs) }
    names.map { n =>
      val state = store.open(n).state
      val stateDir = new File(new File(store.root.stripPrefix("file:").replaceFirst("^//", ""), n), "state")
      val files = stateDir.listFiles().toSeq
      val rollup = files.filter(_.getName.startsWith("rollup-")).maxByOption(_.getName)
      val readOnOpen = rollup.map(_.length).getOrElse(0L) + files.filter(f => !f.getName.startsWith("rollup-") &&
        rollup.forall(r => f.getName > r.getName.stripPrefix("rollup-"))).map(_.length).sum
      val opens = (0 until Opens + 2).map(_ => timedMs(new ShardStore(store.root, spark.sessionState.newHadoopConf())
        .open(n).state)._2).drop(2)
      n -> Shape(n, state.batches.size, state.partCount, files.map(_.length).sum / 1e6, readOnOpen / 1e6,
        median(opens), measured((n, "window")), measured((n, "full")))
    }.toMap
  }

  private def report(shapes: Seq[Shape], compaction: CompactionResult, gc: GcResult, compactMs: Double, rows: Long,
      appends: Int, rowsPerAppend: Int, largeBatches: Int, days: Int, runs: Int): Seq[Table] = {
    import Table.Column
    val Seq(before, after, large) = shapes
    val windowRatio = after.window.wallMs / large.window.wallMs
    val openDrop = before.openMs / after.openMs
    def verdict(ok: Boolean) = if (ok) "met" else "missed"
    val shapesTable = Table(
      s"Compaction of $appends appends of $rowsPerAppend rows over $days days, against $largeBatches large batches " +
        s"(local[2]; queries: median of $runs alternating runs after a warm-up; open: median of $Opens cold opens)",
      Seq(Column("shard", "shard"), Column("batches", "batches"), Column("parts", "parts"),
        Column("state MB", "stateMB", 2), Column("open reads MB", "openReadMB", 2), Column("open ms", "openMs"),
        Column("7-day parts", "windowParts"), Column("7-day ms", "windowMs"), Column("7-day cpu ms", "windowCpuMs"),
        Column("full-scan ms", "fullMs"), Column("full-scan cpu ms", "fullCpuMs")),
      shapes.map(s => Seq[Any](s.label, s.batches, s.parts, s.stateMB, s.openReadMB, s.openMs,
        s"${s.window.partsRead}/${s.window.partsTotal}", s.window.wallMs, s.window.cpuMs, s.full.wallMs, s.full.cpuMs)),
      Seq(
        f"target: compacted 7-day window <= ${WindowTarget}%.1fx the large-batch shard's: $windowRatio%.2fx (${verdict(windowRatio <= WindowTarget)})",
        f"target: open time drops >= ${OpenTarget}%.0fx: $openDrop%.1fx (${verdict(openDrop >= OpenTarget)})",
        "state MB after compaction is after GC (keepVersions 1, no grace); open reads MB = newest rollup + the diffs after it"))
    val compactionTable = Table("The compaction (default settings: fanIn 8, targetBytes 128 MiB, windowMs 1 day) and the GC after it",
      Seq(Column("rows", "rows"), Column("rounds", "rounds"), Column("groups merged", "groups"),
        Column("batches", "batches"), Column("compaction s", "compactionSeconds", 2),
        Column("s per 1M rows", "secondsPerMillionRows", 2), Column("MB read", "mbRead", 2),
        Column("MB written", "mbWritten", 2), Column("GC parts deleted", "gcPartsDeleted"),
        Column("GC state files deleted", "gcStateFilesDeleted")),
      Seq(Seq[Any](rows, compaction.rounds, compaction.groupsMerged,
        s"${compaction.batchesBefore} -> ${compaction.batchesAfter}", compactMs / 1e3, compactMs / 1e3 / (rows / 1e6),
        compaction.bytesRead / 1e6, compaction.bytesWritten / 1e6, gc.partsDeleted.size, gc.stateFilesDeleted.size)))
    Seq(shapesTable, compactionTable)
  }
}
