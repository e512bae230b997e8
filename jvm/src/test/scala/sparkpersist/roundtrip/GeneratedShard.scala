package sparkpersist.roundtrip

import scala.collection.immutable.ListMap
import scala.util.Random

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.expressions.RowOrdering
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StringType, StructField, StructType, VarcharType}

import sparkpersist.PersistConf
import sparkpersist.schema.{NestedNullability, StorableTypes}

/**
 * One random shard of the round-trip property: its schema and order key, the batches its rows are
 * written in (each a DataFrame of `partitions` input partitions, so one run per partition), the
 * largest part, and the session settings of the write and of the reads. Everything follows from
 * (`seed`, `index`): [[GeneratedShard.apply]] with the same two gives the same shard, and `rand`
 * goes on to draw the shard's filters.
 *
 * `schema` is the shard's data as reads return it: every level inside a column nullable, as a shard
 * created from a DataFrame stores it, top-level columns NOT NULL or not. Each batch's DataFrame has
 * the same logical types with a nullability of its own at every depth, its top-level columns and
 * the fields of its structs (at any depth) in an order of its own. The shard is created either as a
 * user's first write creates it (`createdByWriter`: from the first batch's DataFrame, whose layout
 * is then `schema`'s and whose nullability inside may say NOT NULL where later batches hold nulls),
 * or from `declared`: `schema`, but some STRING columns declared VARCHAR(n) (n at least the longest
 * value), so that batches of STRING go into VARCHAR columns.
 */
final case class GeneratedShard(
    seed: Long,
    index: Int,
    schema: StructType,
    declared: StructType,
    createdByWriter: Boolean,
    orderBy: Seq[String],
    batches: Seq[GeneratedShard.Batch],
    maxRowsPerPart: Long,
    writeSettings: Map[String, String],
    readSettings: Map[String, String],
    rand: Random) {

  /** The shard's name (an identifier), unique per (seed, index). */
  def name: String = s"rt_${java.lang.Long.toUnsignedString(seed)}_$index"

  /** Every row written, in the shard's layout ([[schema]]). */
  def rows: Seq[Row] = batches.flatMap(_.shardRows)

  /** How to reproduce this shard alone, and what it is. */
  def describe: String =
    s"seed $seed, shard #$index ($name): schema ${declared.toDDL}${if (createdByWriter) " (created by its first write)" else ""}; order by [${orderBy.mkString(", ")}]; " +
      s"${rows.size} rows in ${batches.size} batch(es) of ${batches.map(_.partitions).mkString("/")} partition(s) " +
      s"(${batches.map(b => if (b.insert) "INSERT" else "ShardWriter").mkString("/")}) with DataFrame schemas " +
      s"${batches.map(_.schema.toDDL).mkString("; ")}, " +
      s"maxRowsPerPart $maxRowsPerPart; write settings $writeSettings; read settings $readSettings"
}

object GeneratedShard {

  /**
   * The rows of one write, spread over `partitions` input partitions, written with `ShardWriter`
   * or, if `insert`, with SQL `INSERT INTO persist.<shard> BY NAME SELECT * FROM <the rows>` (whose
   * tasks run under the session's SQL settings). `rows` have the batch's own `schema`;
   * `shardRows` are the same rows in the shard's layout.
   */
  final case class Batch(schema: StructType, rows: Seq[Row], shardRows: Seq[Row], partitions: Int, insert: Boolean)

  /** `dt` with a random nullability of its own at every level inside it. */
  private def nullability(rand: Random, dt: DataType): DataType = dt match {
    case ArrayType(e, _) => ArrayType(nullability(rand, e), rand.nextBoolean())
    case MapType(k, v, _) => MapType(nullability(rand, k), nullability(rand, v), rand.nextBoolean())
    case s: StructType =>
      StructType(s.fields.map(f => f.copy(dataType = nullability(rand, f.dataType), nullable = rand.nextBoolean())))
    case other => other
  }

  /** `dt` with the fields of its structs, at every depth, in a random order. */
  private def shuffled(rand: Random, dt: DataType): DataType = dt match {
    case ArrayType(e, n) => ArrayType(shuffled(rand, e), n)
    case MapType(k, v, n) => MapType(shuffled(rand, k), shuffled(rand, v), n)
    case s: StructType => StructType(rand.shuffle(s.fields.toSeq).map(f => f.copy(dataType = shuffled(rand, f.dataType))))
    case other => other
  }

  /** `value` of type `from` laid out as `to`, the same type with its struct fields (matched by name) in another order. */
  private def reshaped(value: Any, from: DataType, to: DataType): Any = (value, from, to) match {
    case (null, _, _) => null
    case (r: Row, f: StructType, t: StructType) =>
      Row.fromSeq(t.fields.toSeq.map { tf =>
        val i = f.fieldIndex(tf.name)
        reshaped(r.get(i), f(i).dataType, tf.dataType)
      })
    case (xs: Seq[_], ArrayType(fe, _), ArrayType(te, _)) => xs.map(reshaped(_, fe, te))
    case (m: scala.collection.Map[_, _], MapType(fk, fv, _), MapType(tk, tv, _)) =>
      ListMap(m.toSeq.map { case (k, v) => reshaped(k, fk, tk) -> reshaped(v, fv, tv) }: _*)
    case _ => value
  }

  /**
   * A batch of `n` rows for a shard of `schema`: values drawn for a nullability of the batch's own
   * inside each column (nulls wherever it allows them), top-level nulls only where the shard allows
   * them (a NOT NULL column's DataFrame field may still say nullable), then laid out in the batch's
   * own column and field order.
   */
  private def batch(rand: Random, schema: StructType, n: Int, inShardLayout: Boolean): Batch = {
    val drawn = StructType(schema.fields.map(f => f.copy(dataType = nullability(rand, f.dataType))))
    val next = new RandomValues(rand).rows(drawn)
    val shardRows = Seq.fill(n)(next())
    val framed = StructType(drawn.fields.map(f => if (f.nullable) f else f.copy(nullable = rand.nextBoolean())))
    val layout = if (inShardLayout) framed else shuffled(rand, framed).asInstanceOf[StructType]
    Batch(layout, shardRows.map(reshaped(_, framed, layout).asInstanceOf[Row]), shardRows, 1 + rand.nextInt(3),
      insert = rand.nextInt(3) == 0)
  }

  /**
   * `schema` with some STRING columns declared VARCHAR(n), n at least their longest value in `rows`
   * (in characters, as Spark counts them), so no write trims or refuses one.
   */
  private def declared(rand: Random, schema: StructType, rows: Seq[Row]): StructType =
    StructType(schema.fields.zipWithIndex.map { case (f, i) =>
      if (f.dataType != StringType || rand.nextInt(3) != 0) f
      else {
        val longest = rows.iterator.map(_.get(i)).collect { case s: String => s.codePointCount(0, s.length) }.maxOption
        f.copy(dataType = VarcharType(math.max(1, longest.getOrElse(0)) + rand.nextInt(3)))
      }
    })

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
    val generated = GeneratedShard.storable(RandomTypes.schema(rand, maxColumns = 8, maxDepth = 1 + rand.nextInt(4)))
    val schema = StructType(generated.fields.map(f => f.copy(dataType = NestedNullability.relaxed(f.dataType))))
    val orderable = schema.fields.filter(f => RowOrdering.isOrderable(f.dataType)).map(_.name)
    val orderBy = if (orderable.nonEmpty && rand.nextBoolean()) Seq(orderable(rand.nextInt(orderable.length))) else Nil
    val total = 2 + rand.nextInt(1 + rand.nextInt(maxRows))
    val count = math.min(2 + rand.nextInt(3), total)
    val sizes = Seq.tabulate(count)(i => total / count + (if (i < total % count) 1 else 0))
    val createdByWriter = rand.nextBoolean()
    val batches = sizes.zipWithIndex.map { case (n, i) =>
      val b = batch(rand, schema, n, inShardLayout = createdByWriter && i == 0)
      if (createdByWriter && i == 0) b.copy(insert = false) else b
    }
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
    GeneratedShard(seed, index, schema, if (createdByWriter) schema else declared(rand, schema, batches.flatMap(_.shardRows)),
      createdByWriter, orderBy, batches, 5L + rand.nextInt(36), write, read, rand)
  }
}
