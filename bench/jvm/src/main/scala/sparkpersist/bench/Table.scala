package sparkpersist.bench

import com.fasterxml.jackson.databind.node.{ArrayNode, ObjectNode}

import sparkpersist.codec.Json

/**
 * A benchmark's result table: printed with aligned columns, and written as JSON (one object per
 * row keyed by each column's `key`, numbers kept as numbers) for `bench/plot.py`.
 */
final case class Table(title: String, columns: Seq[Table.Column], rows: Seq[Seq[Any]], notes: Seq[String] = Nil) {
  rows.foreach(r => require(r.size == columns.size, s"row of ${r.size} cells for ${columns.size} columns"))

  def render: String = {
    val cells = rows.map(_.zip(columns).map { case (v, c) => c.format(v) })
    val widths = columns.indices.map(i => (columns(i).header +: cells.map(_(i))).map(_.length).max)
    def line(values: Seq[String]) = values.zip(widths).zipWithIndex.map {
      case ((v, w), 0) => v.padTo(w, ' ')
      case ((v, w), _) => " " * (w - v.length) + v
    }.mkString("  ")
    (Seq("", title, line(columns.map(_.header))) ++ cells.map(line) ++ notes).mkString("\n")
  }

  def print(): Unit = println(render)

  /** `{"title": ..., "columns": [...], "rows": [{key: value, ...}, ...], "notes": [...]}` */
  def toJson: ObjectNode = {
    val out = Json.obj().put("title", title)
    val cols = out.putArray("columns")
    columns.foreach(c => cols.addObject().put("header", c.header).put("key", c.key))
    val array = out.putArray("rows")
    rows.foreach { r =>
      val node = array.addObject()
      r.zip(columns).foreach { case (v, c) => Table.put(node, c.key, v) }
    }
    val ns: ArrayNode = out.putArray("notes")
    notes.foreach(n => ns.add(n))
    out
  }
}

object Table {

  /** A column: its printed header, its JSON key, and the decimals printed for fractional values. */
  final case class Column(header: String, key: String, decimals: Int = 1) {
    def format(v: Any): String = v match {
      case d: Double if d.isNaN || d.isInfinite => "-"
      case d: Double => s"%.${decimals}f".format(d)
      case None => "-"
      case Some(x) => format(x)
      case x => String.valueOf(x)
    }
  }

  private[bench] def put(node: ObjectNode, key: String, v: Any): Unit = v match {
    case d: Double if d.isNaN || d.isInfinite => node.putNull(key)
    case d: Double => node.put(key, d)
    case l: Long => node.put(key, l)
    case i: Int => node.put(key, i)
    case b: Boolean => node.put(key, b)
    case None => node.putNull(key)
    case Some(x) => put(node, key, x)
    case x => node.put(key, String.valueOf(x))
  }
}
