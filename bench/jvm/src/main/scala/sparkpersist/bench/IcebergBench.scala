package sparkpersist.bench

import java.io.File
import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.SparkSession

import sparkpersist.PersistConf
import sparkpersist.bench.Bench.{arg, median, percentile, timedMs}
import sparkpersist.iceberg.IcebergSyncQueue
import sparkpersist.shard.ShardStore

/**
 * What the Iceberg metadata (`sparkpersist.iceberg`, issue 53) costs a commit: three shards of the same
 * rows written side by side (the order rotating): `without` the table property, `sync` with it and
 * `spark.sparkpersist.iceberg.async` off (the snapshot written inside the statement, after the state's
 * compare-and-set), `async` with it and the default (the statement returns after the compare-and-set; the
 * driver's background writer writes the snapshot). `appends` appends of `rows` rows each, then `deletes`
 * DELETEs of scattered rows (`id % 97 = k`: retractions by position in every part, so each writes a position
 * delete file beside its snapshot). Per kind of commit: the median and 90th percentile of the statement's
 * wall time per setting, the ratios to `without`, how long after an async statement returned its snapshot
 * was written (the background writer waited for, untimed for the other settings, so it never runs beside
 * their statements), and the bytes of Iceberg metadata each version added under `metadata/` (its
 * `v<N>.metadata.json`, manifest list, manifests and delete file), against the state log's bytes.
 * One untimed append and DELETE first on each shard (class loading, JIT).
 *
 * `bench/runMain sparkpersist.bench.IcebergBench [appends=40] [rows=20000] [deletes=10]`. Prints a table
 * and writes bench/out/iceberg.json.
 */
object IcebergBench {
  private val Settings = Seq("without", "sync", "async")

  def main(args: Array[String]): Unit = {
    val appends = arg(args, 0, 40)(_.toInt)
    val rows = arg(args, 1, 20000L)(_.toLong)
    val deletes = arg(args, 2, 10)(_.toInt)
    val root = Files.createTempDirectory("iceberg-bench").toFile
    val spark = Bench.persistSession("IcebergBench", root)
    val store = new ShardStore(root.toURI.toString, spark.sessionState.newHadoopConf())
    try {
      Settings.foreach { s =>
        spark.sql(s"CREATE TABLE persist.$s (id BIGINT, name STRING, amount DOUBLE)" +
          (if (s == "without") "" else " TBLPROPERTIES ('sparkpersist.iceberg' = 'true')"))
      }
      var next = 0L
      def statement(table: String, sql: String): Unit = {
        spark.conf.set(PersistConf.IcebergAsync.key, (table == "async").toString)
        spark.sql(sql).collect()
      }
      def append(table: String, from: Long): Unit = statement(table, s"INSERT INTO persist.$table SELECT id, " +
        s"concat('n', id), id * 0.5 FROM range($from, ${from + rows}, 1, 2)")
      def delete(table: String, k: Int): Unit = statement(table, s"DELETE FROM persist.$table WHERE id % 97 = $k")
      // Warm-up: one append and one DELETE per shard, untimed.
      Settings.foreach(append(_, next)); next += rows
      Settings.foreach(delete(_, 96))
      settle(store, "async")
      val appendRuns = measure(root, store, appends)(i => { val from = next; next += rows; append(_, from) })
      val deleteRuns = measure(root, store, deletes)(k => delete(_, k))
      val table = report(Seq("append" -> appendRuns, "DELETE" -> deleteRuns), rows)
      table.print()
      BenchOutput.write("iceberg.json", "iceberg", Seq("appends" -> appends, "rows" -> rows, "deletes" -> deletes,
        "spark" -> spark.version), table)
    } finally {
      spark.stop()
      FileUtils.deleteQuietly(root)
    }
  }

  /** Waits for the background writer to finish the shard's pending syncs; how long it took (ms). */
  private def settle(store: ShardStore, table: String): Double =
    timedMs(require(IcebergSyncQueue.awaitShard(store.open(table), 600000L), s"the background sync of $table hangs"))._2

  /**
   * One commit's statement wall time, how long its metadata was written after it returned (async only), and the
   * bytes it added under the shard's `metadata/` (Iceberg) and to its state log.
   */
  final case class Run(wallMs: Double, lagMs: Double, icebergBytes: Long, stateBytes: Long)

  /** `count` commits on each shard, the settings rotating first: per setting, the runs. */
  private def measure(root: File, store: ShardStore, count: Int)(commit: Int => String => Unit): Map[String, Seq[Run]] =
    (0 until count).flatMap { i =>
      val run = commit(i)
      val order = Settings.drop(i % Settings.size) ++ Settings.take(i % Settings.size)
      order.map { s =>
        val (icebergBefore, stateBefore) = (bytes(new File(root, s"$s/metadata")), stateBytes(new File(root, s)))
        val (_, ms) = timedMs(run(s))
        val lag = if (s == "async") settle(store, s) else 0.0
        s -> Run(ms, lag, bytes(new File(root, s"$s/metadata")) - icebergBefore, stateBytes(new File(root, s)) - stateBefore)
      }
    }.groupBy(_._1).map { case (s, runs) => s -> runs.map(_._2) }

  private def bytes(dir: File): Long = if (dir.exists()) FileUtils.sizeOfDirectory(dir) else 0L

  /** The bytes of the shard's directory that are neither parts nor Iceberg metadata: its state log. */
  private def stateBytes(shard: File): Long =
    bytes(shard) - bytes(new File(shard, "parts")) - bytes(new File(shard, "metadata"))

  private def report(kinds: Seq[(String, Map[String, Seq[Run]])], rows: Long): Table = {
    val rowsOut = kinds.map { case (kind, runs) =>
      val wall = Settings.map(s => s -> runs(s).map(_.wallMs)).toMap
      Seq(kind, runs("async").size) ++ Settings.map(s => median(wall(s))) ++
        Seq(median(wall("sync")) / median(wall("without")), median(wall("async")) / median(wall("without"))) ++
        Settings.map(s => percentile(wall(s), 0.9)) ++
        Seq(median(runs("async").map(_.lagMs)), median(runs("async").map(_.icebergBytes.toDouble)) / 1024,
          median(runs("async").map(_.stateBytes.toDouble)) / 1024)
    }
    Table(s"Commit latency without sparkpersist.iceberg, with it written in the statement (sync) and in the " +
      s"background (async) ($rows rows per append, local disk)", Seq(
      Table.Column("commit", "commit"), Table.Column("runs", "runs")) ++
      Settings.map(s => Table.Column(s"median ms $s", s"median_ms_$s")) ++ Seq(
      Table.Column("sync ratio", "ratio_sync", 2), Table.Column("async ratio", "ratio_async", 2)) ++
      Settings.map(s => Table.Column(s"p90 ms $s", s"p90_ms_$s")) ++ Seq(
      Table.Column("async metadata after ms", "async_lag_ms"),
      Table.Column("Iceberg KiB / version", "iceberg_kib_per_version"),
      Table.Column("state KiB / version", "state_kib_per_version")), rowsOut,
      Seq("async metadata after: from the statement's return until its snapshot was written (median). Iceberg KiB / " +
        "version: what each commit added under metadata/ (metadata JSON, manifest list, manifests, delete file), less " +
        "the metadata files it deleted beyond the newest 21; state KiB: the same for the state log."))
  }
}
