package sparkpersist.bench

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.shard.Json
import sparkpersist.stats.StatsCollector

/**
 * Per-value cost of the stats collectors on nested columns, next to the flat columns holding the
 * same leaves: a struct<int, string> against an int and a string column, an array of 5 strings
 * against 5 string values, a map of 3 string → int entries against 3 strings and 3 ints. Rows are
 * UnsafeRows (as a write task feeds them), made once; each pass feeds every row to fresh collectors,
 * in rounds over all scenarios. Median of the timed rounds after two warm-up rounds, in
 * nanoseconds per row.
 *
 * Usage: bench/runMain sparkpersist.bench.NestedStatsBench [rows] [passes]; writes
 * bench/out/nested_stats.json.
 */
object NestedStatsBench {

  private def str(i: Int) = UTF8String.fromString(s"tag-${i % 997}")

  /** Scenario name, column types, and the values of row `i` in those columns. */
  private val scenarios: Seq[(String, Seq[DataType], Int => Seq[Any])] = Seq(
    ("int + string (flat)", Seq(IntegerType, StringType), i => Seq(i, str(i))),
    ("struct<int, string>", Seq(StructType(Seq(StructField("a", IntegerType), StructField("s", StringType)))),
      i => Seq(InternalRow(i, str(i)))),
    ("5 strings (flat)", Seq.fill(5)(StringType), i => (0 until 5).map(j => str(i + j))),
    ("array<string> of 5", Seq(ArrayType(StringType)),
      i => Seq(new GenericArrayData((0 until 5).map(j => str(i + j)).toArray[Any]))),
    ("3 strings + 3 ints (flat)", Seq.fill(3)(StringType) ++ Seq.fill(3)(IntegerType),
      i => (0 until 3).map(j => str(i + j)) ++ (0 until 3).map(i + _)),
    ("map<string, int> of 3", Seq(MapType(StringType, IntegerType)),
      i => Seq(ArrayBasedMapData((0 until 3).map(j => str(i + j)).toArray[Any], (0 until 3).map(i + _).toArray[Any]))))

  def main(args: Array[String]): Unit = {
    val rows = args.headOption.map(_.toInt).getOrElse(300000)
    val passes = args.lift(1).map(_.toInt).getOrElse(5)
    val inputs = scenarios.map { case (_, types, values) =>
      val project = UnsafeProjection.create(types.toArray)
      (0 until rows).map(i => project(InternalRow.fromSeq(values(i))).copy())
    }
    def pass(s: Int): Long = {
      val collectors = scenarios(s)._2.map(StatsCollector.forType(_, 64)).toArray
      val start = System.nanoTime()
      inputs(s).foreach { row =>
        var c = 0
        while (c < collectors.length) { collectors(c).update(row, c); c += 1 }
      }
      collectors.foreach(_.result())
      System.nanoTime() - start
    }
    // Rounds run every scenario once, so drifts of a shared machine spread over all of them.
    val timings = (1 to passes + 2).map(_ => scenarios.indices.map(pass)).drop(2)
    val results = scenarios.indices.map { s =>
      val sorted = timings.map(_(s)).sorted
      scenarios(s)._1 -> sorted(sorted.size / 2).toDouble / rows
    }
    println(f"${"scenario"}%-28s ${"ns/row"}%8s")
    results.foreach { case (name, ns) => println(f"$name%-28s $ns%8.1f") }
    val json = Json.mapper.createObjectNode()
    json.put("rows", rows)
    json.put("passes", passes)
    val arr = json.putArray("scenarios")
    results.foreach { case (name, ns) => arr.addObject().put("scenario", name).put("nsPerRow", ns) }
    BenchOutput.write("nested_stats.json", json)
  }
}
