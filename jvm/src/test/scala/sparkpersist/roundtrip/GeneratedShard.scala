package sparkpersist.roundtrip

import scala.util.Random

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.expressions.RowOrdering
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructField, StructType}

import sparkpersist.PersistConf
import sparkpersist.schema.StorableTypes

/**
 * One random shard of the round-trip property: its schema and order key, the batches its rows are
 * written in (each a DataFrame of `partitions` input partitions, so one run per partition), the
 * largest part, and the session settings of the write and of the reads. Everything follows from
 * (`seed`, `index`): [[GeneratedShard.apply]] with the same two gives the same shard, and `rand`
 * goes on to draw the shard's filters.
 */
final case class GeneratedShard(
    seed: Long,
    index: Int,
    schema: StructType,
    orderBy: Seq[String],
    batches: Seq[GeneratedShard.Batch],
    maxRowsPerPart: Long,
    writeSettings: Map[String, String],
    readSettings: Map[String, String],
    rand: Random) {

  /** The shard's name (an identifier), unique per (seed, index). */
  def name: String = s"rt_${java.lang.Long.toUnsignedString(seed)}_$index"

  def rows: Seq[Row] = batches.flatMap(_.rows)

  /** How to reproduce this shard alone, and what it is. */
  def describe: String =
    s"seed $seed, shard #$index ($name): schema ${schema.toDDL}; order by [${orderBy.mkString(", ")}]; " +
      s"${rows.size} rows in ${batches.size} batch(es) of ${batches.map(_.partitions).mkString("/")} partition(s) " +
      s"(${batches.map(b => if (b.insert) "INSERT" else "ShardWriter").mkString("/")}), " +
      s"maxRowsPerPart $maxRowsPerPart; write settings $writeSettings; read settings $readSettings"
}

object GeneratedShard {

  /**
   * The rows of one write, spread over `partitions` input partitions, written with `ShardWriter`
   * or, if `insert`, with SQL `INSERT INTO persist.<shard> SELECT * FROM <the rows>` (whose tasks
   * run under the session's SQL settings).
   */
  final case class Batch(rows: Seq[Row], partitions: Int, insert: Boolean)

  private val timeZones = IndexedSeq("UTC", "America/Los_Angeles", "Asia/Kathmandu", "Pacific/Chatham",
    "Europe/Berlin", "Australia/Lord_Howe", "America/St_Johns")

  /** `schema` with each unstorable field of an empty name renamed `unnamed` (unique among its siblings by a suffix). */
  private def storable(schema: StructType): StructType = {
    def fix(dt: DataType): DataType = dt match {
      case s: StructType =>
        StructType(s.fields.map { f =>
          val named = if (f.name.isEmpty && StorableTypes.unstorable(StructType(Seq(f.copy(name = "c")))).isEmpty &&
              StorableTypes.unstorable(StructType(Seq(StructField("c", StructType(Seq(f)))))).nonEmpty) {
            Iterator.from(0).map(i => s"unnamed$i").find(n => !s.fieldNames.exists(_.equalsIgnoreCase(n))).get
          } else f.name
          f.copy(name = named, dataType = fix(f.dataType))
        })
      case ArrayType(e, n) => ArrayType(fix(e), n)
      case MapType(k, v, n) => MapType(fix(k), fix(v), n)
      case other => other
    }
    fix(schema).asInstanceOf[StructType]
  }

  /**
   * The shard `index` of the run with `seed`: 1 to `maxRows` rows (fewer more often: every part
   * costs a file to open in each read), columns nested up to 4 deep.
   */
  def apply(seed: Long, index: Int, maxRows: Int = 200): GeneratedShard = {
    val rand = new Random(seed * 1000003L + index)
    def pick[T](xs: T*): T = xs(rand.nextInt(xs.size))
    // Fields with an empty name holding a collated string inside an array or map are refused
    // (Spark's schema JSON loses their collation; WriteBoundarySuite): they get a name here.
    val schema = GeneratedShard.storable(RandomTypes.schema(rand, maxColumns = 8, maxDepth = 1 + rand.nextInt(4)))
    val orderable = schema.fields.filter(f => RowOrdering.isOrderable(f.dataType)).map(_.name)
    val orderBy = if (orderable.nonEmpty && rand.nextBoolean()) Seq(orderable(rand.nextInt(orderable.length))) else Nil
    val next = new RandomValues(rand).rows(schema)
    val rows = Seq.fill(1 + rand.nextInt(1 + rand.nextInt(maxRows)))(next())
    val cuts = Seq.fill(rand.nextInt(2))(rand.nextInt(rows.size + 1)).sorted
    val batches = (0 +: cuts).zip(cuts :+ rows.size).map { case (from, until) =>
      Batch(rows.slice(from, until), 1 + rand.nextInt(3), insert = rand.nextInt(3) == 0)
    }.filter(_.rows.nonEmpty)
    val rebase = Seq("CORRECTED", "LEGACY", "EXCEPTION")
    val write = Map(
      "spark.sql.session.timeZone" -> pick(timeZones: _*),
      "spark.sql.ansi.enabled" -> pick("true", "false"),
      "spark.sql.parquet.outputTimestampType" -> pick("INT96", "TIMESTAMP_MICROS", "TIMESTAMP_MILLIS"),
      "spark.sql.parquet.datetimeRebaseModeInWrite" -> pick(rebase: _*),
      "spark.sql.parquet.int96RebaseModeInWrite" -> pick(rebase: _*),
      "spark.sql.parquet.writeLegacyFormat" -> pick("true", "false"),
      "spark.sql.parquet.compression.codec" -> pick("snappy", "zstd", "gzip", "uncompressed"),
      "spark.sql.variant.writeShredding.enabled" -> pick("true", "false"),
      PersistConf.StringBoundChars.key -> pick("64", (1 + rand.nextInt(8)).toString),
      PersistConf.StatsBudgetBytes.key -> pick("0", "1024", "300", "4096"))
    val read = Map(
      "spark.sql.session.timeZone" -> pick(timeZones: _*),
      "spark.sql.ansi.enabled" -> pick("true", "false"),
      "spark.sql.caseSensitive" -> pick("true", "false"),
      "spark.sql.parquet.enableVectorizedReader" -> pick("true", "false"),
      "spark.sql.parquet.enableNestedColumnVectorizedReader" -> pick("true", "false"),
      "spark.sql.parquet.datetimeRebaseModeInRead" -> pick(rebase: _*),
      "spark.sql.parquet.int96RebaseModeInRead" -> pick(rebase: _*))
    GeneratedShard(seed, index, schema, orderBy, batches, 5L + rand.nextInt(36), write, read, rand)
  }
}
