package sparkpersist.isolation

import scala.jdk.CollectionConverters._
import scala.util.Random
import scala.util.control.NonFatal

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.types.StructType

import sparkpersist.{PersistConf, PersistExtensions}
import sparkpersist.catalog.PersistCatalog
import sparkpersist.shard.{ShardStore, UpperMismatch}

/** One operation of a race on a shard, named by its id: the userMetadata of the batch it commits. */
sealed trait RaceOp {
  def id: String
}

/** An append of `rows` (each one unique: its tag names the op), by `INSERT INTO … VALUES` or a DataFrame. */
final case class Append(id: String, rows: Seq[Row], bySql: Boolean) extends RaceOp

/** A `DELETE`, `UPDATE`, `MERGE` or `INSERT OVERWRITE` of the table `{t}`: an oracle runs the same text on its own. */
final case class Statement(id: String, text: String) extends RaceOp

/** A compaction or garbage collection of the shard `{shard}`: it commits no batch of its own. */
final case class Maintenance(id: String, text: String) extends RaceOp

/**
 * How an op ended (`Outcome.Ok`, ...), the shard's upper just before and just after it ran, and
 * how many attempts of an append lost the race before that.
 */
final case class Outcome(id: String, result: String, upperBefore: Long, upperAfter: Long, lostAttempts: Int = 0,
    error: String = "") {
  /** One line of the other process's output. */
  def render: String = s"OUTCOME $id $result $upperBefore $upperAfter $lostAttempts $error".trim
}

object Outcome {
  val Ok = "ok"
  /** A statement failed with [[ConcurrentShardUpdate]]. */
  val Conflict = "conflict"
  /** Every attempt of an append lost the race for the upper ([[UpperMismatch]]). */
  val Lost = "lost"
  /** Anything else: never expected. */
  val Error = "error"

  def parse(line: String): Outcome = {
    val Array(_, id, result, before, after, lost, error @ _*) = line.split(" ", 7)
    Outcome(id, result, before.toLong, after.toLong, lost.toInt, error.mkString)
  }
}

/**
 * The operations of [[StatementRaceSuite]]: drawn from a seed, so that every process draws the
 * same ones (the suite knows what the other process appends), and run in a session of their own.
 */
object RaceOps {
  val Columns = "k INT, v BIGINT, tag STRING"
  val schema: StructType = StructType.fromDDL(Columns)

  /** The `count` ops of `worker` in the race of `seed`; compactions and gcs among them when `maintains`. */
  def ops(seed: Long, worker: String, count: Int, maintains: Boolean): IndexedSeq[RaceOp] = {
    val random = new Random(seed * 7919 + worker.hashCode)
    IndexedSeq.tabulate(count)(i => new Draw(random, s"s$seed-$worker-$i").op(maintains))
  }

  /** Rows as the literal rows of a `VALUES` clause. */
  def values(rows: Seq[Row]): String =
    rows.map(r => s"(${r.getInt(0)}, ${r.getLong(1)}, '${r.getString(2)}')").mkString(", ")

  /** Attempts of an append, as a writer retries one that lost the race for the upper (the same id each time). */
  val AppendAttempts = 3

  /** Runs `op` on `shard` in `spark` (a session of one thread), its id the session's commit userMetadata. */
  def run(spark: SparkSession, shard: String, op: RaceOp, upper: () => Long): Outcome = {
    spark.conf.set(PersistConf.CommitUserMetadata.key, op.id)
    val before = upper()
    def attempt(lost: Int): Outcome = {
      val failure = try { execute(spark, shard, op); None } catch { case NonFatal(e) => Some(e) }
      val outcome = Outcome(op.id, Outcome.Ok, before, upper(), lost)
      failure.fold(outcome) {
        case e if causeOf[ConcurrentShardUpdate](e).nonEmpty => outcome.copy(result = Outcome.Conflict)
        case e if op.isInstanceOf[Append] && causeOf[UpperMismatch](e).nonEmpty =>
          if (lost + 1 < AppendAttempts) attempt(lost + 1) else outcome.copy(result = Outcome.Lost, lostAttempts = lost + 1)
        case e => outcome.copy(result = Outcome.Error, error = Iterator.iterate(e)(_.getCause).takeWhile(_ != null)
          .map(_.toString).mkString(" <- ").replace('\n', ' '))
      }
    }
    attempt(0)
  }

  private def execute(spark: SparkSession, shard: String, op: RaceOp): Unit = op match {
    case Append(_, rows, true) => spark.sql(s"INSERT INTO persist.$shard VALUES ${values(rows)}")
    case Append(_, rows, false) => spark.createDataFrame(rows.asJava, schema).writeTo(s"persist.$shard").append()
    case Statement(_, text) => spark.sql(text.replace("{t}", s"persist.$shard")).collect()
    case Maintenance(_, text) => spark.sql(text.replace("{shard}", shard)).collect()
  }

  /** `e` or its first cause of type `T`. */
  def causeOf[T <: Throwable](e: Throwable)(implicit tag: scala.reflect.ClassTag[T]): Option[T] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).collectFirst { case t: T => t }

  /**
   * One op, named `id`. Appends land in one of eight buckets of five keys (the shard is ordered by
   * `k`, so each part covers a narrow key range); conditions are mostly key ranges, so statements
   * on other buckets read other parts and rebase over each other, and those on the same one conflict.
   */
  private final class Draw(random: Random, id: String) {
    private def pick[T](xs: T*): T = xs(random.nextInt(xs.size))

    private def rows(count: Int): Seq[Row] = {
      val bucket = random.nextInt(8)
      Seq.tabulate(count)(j => Row(bucket * 5 + random.nextInt(5), random.nextInt(1000).toLong, s"$id.$j"))
    }

    /** A condition on the columns `<t>k`, `<t>v`, `<t>tag`. */
    private def condition(t: String): String = {
      val from = random.nextInt(40)
      pick(s"${t}k BETWEEN $from AND ${from + random.nextInt(6)}", s"${t}k IN ($from, ${random.nextInt(40)})",
        s"${t}k >= ${35 + random.nextInt(5)} OR ${t}k < ${random.nextInt(5)}", s"${t}v < ${50 + random.nextInt(100)}",
        s"${t}tag LIKE 's%-w${random.nextInt(3)}-%'")
    }

    private def merge: String = {
      val source = rows(1 + random.nextInt(3)).distinctBy(_.getInt(0)).map(r => Row(r.getInt(0), 1L + r.getLong(1) % 9, r.getString(2)))
      val bySource = if (random.nextInt(4) == 0) s" WHEN NOT MATCHED BY SOURCE AND ${condition("t.")} THEN UPDATE SET tag = concat(t.tag, '~')" else ""
      s"MERGE INTO {t} t USING (SELECT * FROM VALUES ${values(source)} AS s(k, v, tag)) s ON t.k = s.k " +
        "WHEN MATCHED AND t.v >= 500 THEN DELETE WHEN MATCHED THEN UPDATE SET v = t.v + s.v WHEN NOT MATCHED THEN INSERT *" +
        bySource
    }

    def op(maintains: Boolean): RaceOp = random.nextInt(if (maintains) 14 else 12) match {
      case 0 | 1 | 2 => Append(id, rows(2 + random.nextInt(3)), bySql = true)
      case 3 | 4 => Append(id, rows(2 + random.nextInt(3)), bySql = false)
      case 5 | 6 => Statement(id, s"DELETE FROM {t} WHERE ${condition("")}")
      case 7 | 8 => Statement(id, s"UPDATE {t} SET ${pick("v = v + 1000", "tag = concat(tag, '*')")} WHERE ${condition("")}")
      case 9 | 10 => Statement(id, merge)
      case 11 => Statement(id, if (random.nextInt(3) == 0) s"INSERT OVERWRITE {t} VALUES ${values(rows(3))}" else merge)
      case 12 => Maintenance(id, "CALL persist.system.compact(shard => '{shard}', fan_in => 2)")
      // The grace keeps every version of the race: those the statements read, and those the oracle replays.
      case _ => Maintenance(id, "CALL persist.system.gc(shard => '{shard}', keep_versions => 1, grace_ms => 600000)")
    }
  }
}

/**
 * The other process of [[StatementRaceSuite]]: a session of its own on the catalog root `args(0)`.
 * Prints `READY`, then for each line `RUN <shard> <seed> <count>` on its input runs its ops of that
 * race ([[RaceOps.ops]], worker `c`), printing each [[Outcome]] and then `END <shard>`; exits on `EXIT`.
 */
object RaceChild {
  def main(args: Array[String]): Unit = {
    val root = args(0)
    val spark = SparkSession.builder().master("local[2]").appName("RaceChild")
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "2")
      .config("spark.sql.extensions", classOf[PersistExtensions].getName)
      .config("spark.sql.catalog.persist", classOf[PersistCatalog].getName)
      .config("spark.sql.catalog.persist.root", root)
      .config("spark.sql.session.timeZone", "UTC")
      .getOrCreate()
    val store = new ShardStore(root, spark.sparkContext.hadoopConfiguration)
    println("READY")
    Iterator.continually(scala.io.StdIn.readLine()).takeWhile(l => l != null && l != "EXIT").foreach { line =>
      val Array("RUN", shard, seed, count) = line.split(' ')
      RaceOps.ops(seed.toLong, "c", count.toInt, maintains = false).foreach { op =>
        println(RaceOps.run(spark, shard, op, () => store.open(shard).state.upper).render)
      }
      println(s"END $shard")
    }
    spark.stop()
  }
}
