package sparkpersist.bench

import java.io.File
import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.SparkSession

import sparkpersist.bench.Bench.{arg, median, percentile, timedMs}

/**
 * What the Iceberg metadata (`sparkpersist.iceberg`, issue 53) costs a commit: two shards of the same
 * rows, one with the table property on and one without, written side by side (the order alternating):
 * `appends` appends of `rows` rows each, then `deletes` DELETEs of scattered rows (`id % 97 = k`:
 * retractions by position in every part, so each writes a position delete file beside its snapshot).
 * Per kind of commit: the median and 90th percentile of its wall time with and without (the Iceberg
 * snapshot is written on the driver right after the state's compare-and-set, inside the statement),
 * their ratio, and the bytes of Iceberg metadata each version added under `metadata/` (its
 * `v<N>.metadata.json`, manifest list, manifests and delete file), against the state log's bytes.
 * One untimed append and DELETE first on each shard (class loading, JIT).
 *
 * `bench/runMain sparkpersist.bench.IcebergBench [appends=40] [rows=20000] [deletes=10]`. Prints a table
 * and writes bench/out/iceberg.json.
 */
object IcebergBench {
  private val Settings = Seq("without", "with")

  def main(args: Array[String]): Unit = {
    val appends = arg(args, 0, 40)(_.toInt)
    val rows = arg(args, 1, 20000L)(_.toLong)
    val deletes = arg(args, 2, 10)(_.toInt)
    val root = Files.createTempDirectory("iceberg-bench").toFile
    val spark = Bench.persistSession("IcebergBench", root)
    try {
      Settings.foreach { s =>
        spark.sql(s"CREATE TABLE persist.$s (id BIGINT, name STRING, amount DOUBLE)" +
          (if (s == "with") " TBLPROPERTIES ('sparkpersist.iceberg' = 'true')" else ""))
      }
      var next = 0L
      def append(table: String, from: Long): Unit = spark.sql(s"INSERT INTO persist.$table SELECT id, " +
        s"concat('n', id), id * 0.5 FROM range($from, ${from + rows}, 1, 2)").collect()
      def delete(table: String, k: Int): Unit = spark.sql(s"DELETE FROM persist.$table WHERE id % 97 = $k").collect()
      // Warm-up: one append and one DELETE per shard, untimed.
      Settings.foreach(append(_, next)); next += rows
      Settings.foreach(delete(_, 96))
      val appendRuns = measure(root, appends)(i => { val from = next; next += rows; append(_, from) })
      val deleteRuns = measure(root, deletes)(k => delete(_, k))
      val table = report(Seq("append" -> appendRuns, "DELETE" -> deleteRuns), rows)
      table.print()
      BenchOutput.write("iceberg.json", "iceberg", Seq("appends" -> appends, "rows" -> rows, "deletes" -> deletes,
        "spark" -> spark.version), table)
    } finally {
      spark.stop()
      FileUtils.deleteQuietly(root)
    }
  }

  /** One commit's wall time and the bytes it added under the shard's `metadata/` (Iceberg) and `_state`-side log. */
  final case class Run(wallMs: Double, icebergBytes: Long, stateBytes: Long)

  /** `count` commits on each shard, the settings alternating first: per setting, the runs. */
  private def measure(root: File, count: Int)(commit: Int => String => Unit): Map[String, Seq[Run]] =
    (0 until count).flatMap { i =>
      val run = commit(i)
      val order = if (i % 2 == 0) Settings else Settings.reverse
      order.map { s =>
        val (icebergBefore, stateBefore) = (bytes(new File(root, s"$s/metadata")), stateBytes(new File(root, s)))
        val (_, ms) = timedMs(run(s))
        s -> Run(ms, bytes(new File(root, s"$s/metadata")) - icebergBefore, stateBytes(new File(root, s)) - stateBefore)
      }
    }.groupBy(_._1).map { case (s, runs) => s -> runs.map(_._2) }

  private def bytes(dir: File): Long = if (dir.exists()) FileUtils.sizeOfDirectory(dir) else 0L

  /** The bytes of the shard's directory that are neither parts nor Iceberg metadata: its state log. */
  private def stateBytes(shard: File): Long =
    bytes(shard) - bytes(new File(shard, "parts")) - bytes(new File(shard, "metadata"))

  private def report(kinds: Seq[(String, Map[String, Seq[Run]])], rows: Long): Table = {
    val rowsOut = kinds.map { case (kind, runs) =>
      val (without, withIt) = (runs("without").map(_.wallMs), runs("with").map(_.wallMs))
      val added = runs("with").map(_.icebergBytes.toDouble)
      Seq(kind, runs("with").size, median(without), median(withIt), median(withIt) / median(without),
        percentile(without, 0.9), percentile(withIt, 0.9), median(added) / 1024, median(runs("with").map(_.stateBytes.toDouble)) / 1024)
    }
    Table(s"Commit latency with and without sparkpersist.iceberg ($rows rows per append, local disk)", Seq(
      Table.Column("commit", "commit"), Table.Column("runs", "runs"),
      Table.Column("median ms without", "median_ms_without"), Table.Column("median ms with", "median_ms_with"),
      Table.Column("ratio", "ratio", 2), Table.Column("p90 ms without", "p90_ms_without"),
      Table.Column("p90 ms with", "p90_ms_with"), Table.Column("Iceberg KiB / version", "iceberg_kib_per_version"),
      Table.Column("state KiB / version", "state_kib_per_version")), rowsOut,
      Seq("Iceberg KiB / version: what each commit added under metadata/ (metadata JSON, manifest list, manifests, " +
        "delete file), less the metadata files it deleted beyond the newest 21; state KiB: the same for the state log."))
  }
}
