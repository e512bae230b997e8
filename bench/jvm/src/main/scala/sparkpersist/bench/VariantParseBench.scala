package sparkpersist.bench

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.bench.Bench.median
import sparkpersist.stats.{JsonLimits, JsonPlace, JsonTextCollector, StringCollector, VariantParse}

/**
 * What counting the values Spark's `parse_json` accepts ([[VariantParse]]) costs while a JSON text
 * column's stats are collected: per value, the string bounds alone, the JSON text stats without
 * the count (the walk `get_json_object` pruning needs), the count alone, and the collector as it
 * runs at write (all three). Two document shapes: IncumbentsBench's small event
 * (`{"ts": ..., "country": ...}`) and a larger nested one (about 300 bytes). Single thread,
 * `runs` timed rounds after a warm-up, medians; ratios against the collector without the count.
 *
 * Usage: bench/runMain sparkpersist.bench.VariantParseBench [values] [runs]; writes
 * bench/out/variant_parse.json.
 */
object VariantParseBench {

  def main(args: Array[String]): Unit = {
    val values = Bench.arg(args, 0, 200000)(_.toInt)
    val runs = Bench.arg(args, 1, 5)(_.toInt)
    val shapes = Seq(
      "small event" -> ((i: Int) => s"""{"ts": ${1767225600 + i}, "country": "${Countries(i % Countries.length)}"}"""),
      "nested order" -> ((i: Int) =>
        s"""{"id": $i, "ts": ${1767225600 + i}, "amount": ${i % 10000}.${i % 100}, "tags": ["a", "b$i", "c"], """ +
          s""""customer": {"name": "customer number $i", "country": "${Countries(i % Countries.length)}", """ +
          s""""vip": ${i % 7 == 0}, "score": ${i * 1.5e-3}}, "lines": [{"sku": "S$i", "qty": ${i % 5}}, """ +
          s"""{"sku": "T$i", "qty": 1, "note": null}]}"""))
    val rows = shapes.map { case (name, doc) => name -> Array.tabulate(values)(i => InternalRow(UTF8String.fromString(doc(i)))) }
    val steps: Seq[(String, Array[InternalRow] => Unit)] = Seq(
      "string bounds" -> { rs => val c = new StringCollector(16); rs.foreach(c.update(_, 0)) },
      "JSON stats, no count" -> { rs => val root = JsonPlace.root(JsonLimits.Default); rs.foreach { r =>
        val json = r.getUTF8String(0)
        JsonTextCollector.add(json, root)
      } },
      "parse_json count alone" -> { rs => rs.foreach(r => VariantParse.parses(r.getUTF8String(0))) },
      "collector at write" -> { rs => val c = new JsonTextCollector(16); rs.foreach(c.update(_, 0)); c.result() })
    val results = Bench.rounds(runs) { _ =>
      for ((shape, rs) <- rows; (step, run) <- steps) yield (shape, step) -> Bench.timedMs(run(rs))._2 * 1e6 / values
    }
    val table = Table(
      s"JSON text stats per value, with and without the parse_json count: $values values per shape, median of $runs runs",
      Seq(Table.Column("shape", "shape"), Table.Column("step", "step"), Table.Column("ns / value", "nsPerValue", 0),
        Table.Column("/ JSON stats, no count", "ratio", 2)),
      for ((shape, _) <- rows; (step, _) <- steps) yield {
        val ns = median(results((shape, step)))
        Seq(shape, step, ns, ns / median(results((shape, "JSON stats, no count"))))
      })
    table.print()
    BenchOutput.write("variant_parse.json", "variant_parse", Seq("values" -> values, "runs" -> runs), table)
  }

  private val Countries = Array("FR", "DE", "US", "JP", "BR", "IN")
}
