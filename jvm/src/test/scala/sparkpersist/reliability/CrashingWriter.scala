package sparkpersist.reliability

import org.apache.hadoop.fs.{FSDataOutputStream, LocalFileSystem, Path}
import org.apache.hadoop.fs.permission.FsPermission
import org.apache.hadoop.util.Progressable
import org.apache.spark.sql.SparkSession

import sparkpersist.schema.ShardSchema
import sparkpersist.shard.{BatchMeta, BeforePublish, FsStateLog, ShardHandle, ShardState, ShardStore, StateLog}
import sparkpersist.write.{ShardWriter, WriteOptions}

/**
 * The writer [[CrashRun]] kills: appends `batches` batches to a shard of `(k, v)` (batch i holds
 * `(i * 10 + j, "b<i>-<j>")` for j in 0..4, in parts of 2 rows), printing `ACK <i>` once batch
 * i is committed, and halts (`Runtime.halt`, as `kill -9` ends it) during the last batch at `step`:
 *
 *  - `parts`: while writing its second part (the first is complete, the second has its header);
 *  - `commit`: after every part is written, before the commit;
 *  - `state`: while writing its state version (its temp file written, not yet linked in place);
 *  - `rollup`: after the version is committed, while writing the rollup after it (same);
 *  - `none`: never (the parent kills it at a random time instead).
 *
 * Usage: `CrashingWriter <root URI> <shard> <batches> <step>`
 */
object CrashingWriter {
  val Steps: Seq[String] = Seq("parts", "commit", "state", "rollup")
  /** The exit value of a halt at a step. */
  val Halted = 77

  @volatile private var armed = false
  /** Part files created since armed (one file system instance per `getFileSystem`: counted here). */
  private var partsCreated = 0

  def main(args: Array[String]): Unit = {
    val Array(root, shard, batches, step) = args
    val spark = SparkSession.builder().master("local[1]").appName("CrashingWriter")
      .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1")
      .config("spark.hadoop.fs.file.impl", classOf[HaltingFileSystem].getName)
      .config("spark.hadoop.fs.file.impl.disable.cache", "true").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    import spark.implicits._
    val conf = spark.sparkContext.hadoopConfiguration
    val store = new ShardStore(root, conf)
    println("READY")
    (0 until batches.toInt).foreach { i =>
      val last = i == batches.toInt - 1
      val opened = store.open(shard)
      val log = new HaltingLog(opened, if (last) step else "none", conf)
      armed = last && step == "parts"
      val rows = (0 until 5).map(j => (i * 10L + j, s"b$i-$j")).toDF("k", "v").coalesce(1)
      ShardWriter.write(rows, new ShardHandle(opened.name, opened.dir, log, opened.fs), WriteOptions(maxRowsPerPart = Some(2)))
      println(s"ACK $i")
    }
    spark.stop()
  }

  private def halt(): Nothing = {
    Runtime.getRuntime.halt(Halted)
    throw new IllegalStateException("halted")
  }

  /** Halts when a state file whose name `isTarget` is written but not yet visible (in the real write path). */
  private def haltBeforePublishing(isTarget: String => Boolean): Unit =
    BeforePublish.hook = target => if (isTarget(target.getName)) halt()

  /** The shard's state log, halting at `step` of the next commit. */
  private final class HaltingLog(shard: ShardHandle, step: String, conf: org.apache.hadoop.conf.Configuration) extends StateLog {
    // A rollup after the version `rollup` halts in, none otherwise, so that `state` halts writing the version.
    private val log = new FsStateLog(shard.name, new Path(shard.dir, ShardStore.StateDir), conf,
      rollupEvery = if (step == "rollup") 1 else Long.MaxValue)

    def current(): ShardState = log.current()

    def compareAndAppend(expectedUpper: Long, batch: BatchMeta): ShardState =
      halting(log.compareAndAppend(expectedUpper, batch))

    def compareAndAppend(expectedUpper: Long, batch: BatchMeta, writtenUnder: ShardSchema,
        alteredFrom: Option[ShardSchema]): ShardState =
      halting(log.compareAndAppend(expectedUpper, batch, writtenUnder, alteredFrom))

    def appendOnto(writtenUnder: ShardSchema, alteredFrom: Option[ShardSchema])(onto: ShardState => BatchMeta): ShardState =
      halting(log.appendOnto(writtenUnder, alteredFrom)(onto))

    /** Halts at `step` of the commit `append` makes (or makes it). */
    private def halting(append: => ShardState): ShardState = step match {
      case "commit" => halt()
      case "state" =>
        haltBeforePublishing(!_.startsWith("rollup-"))
        append
      case "rollup" =>
        log.current() // reads the log (and writes the rollup a reader owes it) before the halt is armed
        haltBeforePublishing(_.startsWith("rollup-"))
        append
      case _ => append
    }

    def alterSchema(change: ShardSchema => ShardSchema): ShardState = log.alterSchema(change)

    def downgradeSince(newSince: Long): ShardState = log.downgradeSince(newSince)
    def replaceBatches(replacements: Seq[sparkpersist.shard.BatchReplacement]) = log.replaceBatches(replacements)
    def listing(): sparkpersist.shard.StateListing = log.listing()

    def history(limit: Int): IndexedSeq[sparkpersist.shard.VersionEntry] = log.history(limit)
    def statesFrom(seqNo: Long): Iterator[ShardState] = log.statesFrom(seqNo)
    def truncateBefore(seqNo: Long): Seq[String] = log.truncateBefore(seqNo)
  }

  /** The local file system, halting on the second write to the second part file created once armed. */
  final class HaltingFileSystem extends LocalFileSystem {
    override def create(f: Path, permission: FsPermission, overwrite: Boolean, bufferSize: Int, replication: Short,
        blockSize: Long, progress: Progressable): FSDataOutputStream = {
      val file = super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress)
      if (!armed || !f.getName.endsWith(".parquet")) file
      else CrashingWriter.synchronized {
        partsCreated += 1
        if (partsCreated < 2) file
        else new FSDataOutputStream(new java.io.OutputStream {
          private var writes = 0
          private def once(): Unit = {
            writes += 1
            if (writes == 2) { file.hflush(); halt() }
          }
          override def write(b: Int): Unit = { once(); file.write(b) }
          override def write(b: Array[Byte], off: Int, len: Int): Unit = { once(); file.write(b, off, len) }
        }, null)
      }
    }
  }
}
