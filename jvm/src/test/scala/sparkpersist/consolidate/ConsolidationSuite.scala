package sparkpersist.consolidate

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.test.SharedSparkSession
import org.apache.spark.sql.types._

import org.apache.spark.sql.catalyst.InternalRow

import sparkpersist.read.{OpenFiles, ParquetParts, PartFile, PartFileReader}
import sparkpersist.schema.ShardSchema

class ConsolidationSuite extends SharedSparkSession {

  private val schema = ShardSchema.fromStruct(StructType(Seq(
    StructField("k", IntegerType),
    StructField("v", StringType),
    StructField("d", DoubleType, nullable = false),
    StructField("m", MapType(StringType, IntegerType)))), orderBy = Seq("v"))

  private def update(k: Integer, v: String, d: Double, m: Map[String, Int], time: Long, diff: Long): Row =
    Row(k, v, d, m, time, diff)

  /** How a snapshot is consolidated. */
  private sealed trait How
  /** Every run merged ([[Consolidation]]). */
  private case object Merged extends How
  /** The parts holding a retraction summed in memory, the others streamed past them ([[Cancellation]]). */
  private case object InMemory extends How
  /** As `InMemory`, handing out columnar batches ([[ColumnarCancellation]]): every part visible as a whole. */
  private case object Columnar extends How
  private val everyWay = Seq(Merged, InMemory, Columnar)

  /** The snapshot as of `asOf` of `runs` (one part per inner Seq, in merge-key order), consolidated `how`. */
  private def consolidate(asOf: Long, runs: Seq[Seq[Seq[Row]]], schema: ShardSchema = schema,
      how: How = Merged): Seq[Row] = {
    var result: Seq[Row] = Nil
    withTempDir { dir => result = consolidateIn(dir, asOf, runs, schema, how) }
    result
  }

  private def consolidateIn(dir: java.io.File, asOf: Long, runs: Seq[Seq[Seq[Row]]],
      schema: ShardSchema, how: How): Seq[Row] = {
    val files = runs.map(_.map(rows => ParquetParts.write(spark, schema, rows, dir).copy(retracts = rows.exists(_.getLong(5) < 0))))
    val reader = PartFileReader(spark, schema, schema.dataSchema)
    val toRow = CatalystTypeConverters.createToScalaConverter(schema.dataSchema)
    val open = new OpenFiles
    val (retracting, inserting) = files.flatten.partition(_.retracts)
    val rows = how match {
      case Merged => new Consolidation("t", schema, reader, asOf, files, open)
      case InMemory =>
        new Cancellation("t", reader.schema, asOf, retracting, inserting, reader.rowsAsOf(_, asOf, open), complete = true)
      case Columnar =>
        assert(reader.readsBatches)
        new ColumnarCancellation("t", reader.schema, asOf, retracting, inserting, RowShare.All.test, None,
          reader.rowsAsOf(_, asOf, open), reader.batchesOf(_, asOf, open), complete = true)
          .flatMap(_.rowIterator().asScala)
    }
    val fields = schema.dataSchema.fields
    def data(r: org.apache.spark.sql.catalyst.InternalRow) =
      org.apache.spark.sql.catalyst.InternalRow.fromSeq(fields.indices.map(i => if (r.isNullAt(i)) null else r.get(i, fields(i).dataType)))
    try rows.map(r => toRow(data(r)).asInstanceOf[Row]).toList
    finally open.close()
  }

  /** Rows compare by exact value: -0.0 is not 0.0, maps compare as sorted entries. */
  private def identity(r: Row): Seq[Any] = r.toSeq.map {
    case d: Double => java.lang.Double.doubleToLongBits(d)
    case m: scala.collection.Map[_, _] => m.toSeq.map { case (a, b) => s"$a=$b" }.sorted
    case x => x
  }

  private def multiset(rows: Seq[Row]): Map[Seq[Any], Int] =
    rows.groupBy(identity).map { case (k, v) => k -> v.size }

  /** What consolidation must produce: positive net multiplicities, as that many rows. */
  private def bruteForce(updates: Seq[Row], asOf: Long): Map[Seq[Any], Int] =
    updates.filter(_.getLong(4) <= asOf)
      .groupBy(u => identity(Row.fromSeq(u.toSeq.take(4))))
      .map { case (k, us) => k -> us.map(_.getLong(5)).sum.toInt }
      .filter(_._2 > 0)

  /** Sorted as the writer sorts update parts: order key v, then time, then k and d. */
  private def sorted(updates: Seq[Row]): Seq[Row] = {
    val df = spark.createDataFrame(spark.sparkContext.parallelize(updates, 1),
      PartFileReader.fileSchema(schema, schema.dataSchema))
    df.sort("v", "time", "k", "d").collect().toSeq
  }

  test("inserts, retractions, net zero and multiplicity 3 consolidate across runs") {
    val a = update(1, "a", 1.5, Map("x" -> 1), 1, 1)
    val runs = Seq(
      Seq(Seq(a, update(2, "b", 0.0, Map.empty, 1, 3), update(3, "c", 2.0, null, 1, 1))),
      Seq(
        Seq(update(1, "a", 1.5, Map("x" -> 1), 2, -1), update(1, "a", 1.5, Map("x" -> 2), 2, 1)),
        Seq(update(2, "b", 0.0, Map.empty, 3, -1), update(3, "c", 2.0, null, 2, -1))))
    val expected = Seq(
      Row(1, "a", 1.5, Map("x" -> 2)), Row(2, "b", 0.0, Map.empty), Row(2, "b", 0.0, Map.empty))
    assert(consolidate(2, runs) ===
      Seq(Row(1, "a", 1.5, Map("x" -> 2))) ++ Seq.fill(3)(Row(2, "b", 0.0, Map.empty)))
    assert(consolidate(3, runs) === expected)
    assert(consolidate(1, runs) ===
      Seq(Row(1, "a", 1.5, Map("x" -> 1))) ++ Seq.fill(3)(Row(2, "b", 0.0, Map.empty)) :+ Row(3, "c", 2.0, null))
    // In memory: the same rows, in another order.
    for (asOf <- 1L to 3L) assert(multiset(consolidate(asOf, runs, how = InMemory)) === multiset(consolidate(asOf, runs)))
    assert(multiset(consolidate(3, runs, how = Columnar)) === multiset(expected))
  }

  test("rows equal under Spark's ordering but not in value stay apart (-0.0, NaN, maps)") {
    val runs = Seq(
      Seq(Seq(update(1, "a", -0.0, Map("x" -> 1), 1, 1), update(1, "a", 0.0, Map("x" -> 1), 1, 1))),
      Seq(Seq(update(1, "a", 0.0, Map("x" -> 1), 1, -1), update(1, "a", Double.NaN, Map("x" -> 1), 1, 2))),
      Seq(Seq(update(1, "a", Double.NaN, Map("x" -> 2), 1, 1))))
    for (how <- everyWay) assert(multiset(consolidate(1, runs, how = how)) === multiset(Seq(
      Row(1, "a", -0.0, Map("x" -> 1)), Row(1, "a", Double.NaN, Map("x" -> 1)),
      Row(1, "a", Double.NaN, Map("x" -> 1)), Row(1, "a", Double.NaN, Map("x" -> 2)))))
  }

  test("random valid histories consolidate to the brute-force multiset at every as-of") {
    val keys: Seq[Integer] = Seq(null, 1, 2)
    val values = Seq(null, "a", "é", "b")
    val doubles = Seq(0.0, -0.0, Double.NaN, 1.5)
    val maps = Seq(Map.empty[String, Int], Map("x" -> 1), null)
    for (seed <- 1 to 4) {
      val rnd = new Random(seed)
      def pick[T](xs: Seq[T]): T = xs(rnd.nextInt(xs.size))
      val counts = scala.collection.mutable.Map.empty[Seq[Any], Long].withDefaultValue(0L)
      val updates = (0 until 60).map { i =>
        val data = Seq[Any](pick(keys), pick(values), pick(doubles), pick(maps))
        val id = identity(Row.fromSeq(data))
        val diff = if (counts(id) > 0 && rnd.nextBoolean()) -(1 + rnd.nextInt(counts(id).toInt)).toLong
          else (1 + rnd.nextInt(3)).toLong
        counts(id) += diff
        Row.fromSeq(data ++ Seq(i / 10L, diff))
      }
      val runs = rnd.shuffle(updates).grouped(20).toSeq.map { run =>
        sorted(run).grouped(1 + rnd.nextInt(15)).toSeq
      }
      // Columnar: every part visible as a whole, as of the last time.
      for (asOf <- Seq(0L, 2L, 5L); how <- everyWay if how != Columnar || asOf == 5L) {
        assert(multiset(consolidate(asOf, runs, how = how)) === bruteForce(updates, asOf), s"seed $seed as of $asOf, $how")
      }
      val unordered = schema.copy(orderBy = Nil)
      assert(multiset(consolidate(5L, runs, unordered)) === bruteForce(updates, 5L), s"seed $seed, no order key")
    }
  }

  test("more retractions than insertions is an error naming the shard and as-of") {
    val runs = Seq(Seq(Seq(update(1, "a", 1.0, null, 1, 1), update(1, "a", 1.0, null, 2, -2))))
    for (how <- everyWay) {
      val e = intercept[NegativeMultiplicity](consolidate(2, runs, how = how))
      assert(e.getMessage === "[PERSIST_INCONSISTENT_UPDATES] Shard 't' as of 2 holds a row with net multiplicity -1 (more retractions " +
        "than insertions), so its updates are inconsistent. Read its raw updates (the .updates table) " +
        "to find the retractions without a matching insertion. SQLSTATE: 22000")
      if (how != Columnar) assert(consolidate(1, runs, how = how) === Seq(Row(1, "a", 1.0, null)))
    }
    // Retractions in their own part, paid off by inserts streamed from another.
    val apart = Seq(Seq(Seq(update(1, "a", 1.0, null, 1, 2))), Seq(Seq(update(1, "a", 1.0, null, 2, -3))))
    val paid = Seq(Seq(Seq(update(1, "a", 1.0, null, 1, 3))), Seq(Seq(update(1, "a", 1.0, null, 2, -2))))
    for (how <- Seq(InMemory, Columnar)) {
      assert(intercept[NegativeMultiplicity](consolidate(2, apart, how = how)).count === -1)
      assert(consolidate(2, paid, how = how) === Seq(Row(1, "a", 1.0, null)))
    }
  }

  test("a part out of merge-key order is reported, not mis-consolidated") {
    val runs = Seq(Seq(Seq(update(1, "b", 1.0, null, 1, 1), update(1, "a", 1.0, null, 1, 1))))
    val e = intercept[UnsortedRun](consolidate(1, runs))
    assert(e.getMessage.startsWith("Part file:"))
    assert(e.getMessage.endsWith(" of shard 't' is not sorted by the shard's order key, so it cannot " +
      "be consolidated. It was not written by the sparkpersist writer or is corrupt."))
  }
}
