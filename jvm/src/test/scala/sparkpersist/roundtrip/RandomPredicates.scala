package sparkpersist.roundtrip

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

/**
 * Random filters over a shard's top-level columns and struct fields (at any depth), comparing
 * them with literals drawn from the rows written: `=`, `<`, `<=`, `>`, `>=`, `<=>`, `IN` (a NULL in
 * the list now and then), `IS NULL`, `IS NOT NULL`, and now and then `NOT`, `AND` and `OR` of
 * those. Floats and doubles also meet NaN, ±Infinity, 0.0 and -0.0 whether or not the data hold
 * them. Literals are exact ([[SqlLiterals]]).
 */
object RandomPredicates {

  /** A column or struct field: its SQL reference, its type, and its value in a row (null if any struct above is). */
  final case class Target(sql: String, dataType: DataType, valueIn: InternalRow => Any)

  /** Every top-level column and struct field of `schema`. */
  def targets(schema: StructType): Seq[Target] = {
    def fields(struct: StructType, prefix: String, read: InternalRow => InternalRow): Seq[Target] =
      struct.fields.toSeq.zipWithIndex.flatMap { case (f, i) =>
        val sql = prefix + quote(f.name)
        val value: InternalRow => Any = r => {
          val parent = read(r)
          if (parent == null || parent.isNullAt(i)) null else parent.get(i, f.dataType)
        }
        Target(sql, f.dataType, value) +: (f.dataType match {
          case s: StructType => fields(s, sql + ".", r => value(r).asInstanceOf[InternalRow])
          case _ => Nil
        })
      }
    fields(schema, "", identity)
  }

  def quote(name: String): String = "`" + name.replace("`", "``") + "`"

  /** `n` random filters over `rows` of `schema`. */
  def apply(rand: Random, schema: StructType, rows: Seq[InternalRow], n: Int): Seq[String] = {
    val all = targets(schema)
    Seq.fill(n)(combined(rand, all, rows))
  }

  private def combined(rand: Random, targets: Seq[Target], rows: Seq[InternalRow]): String = rand.nextInt(10) match {
    case 0 => s"NOT (${simple(rand, targets, rows)})"
    case 1 => s"(${simple(rand, targets, rows)}) AND (${simple(rand, targets, rows)})"
    case 2 => s"(${simple(rand, targets, rows)}) OR (${simple(rand, targets, rows)})"
    case _ => simple(rand, targets, rows)
  }

  private def simple(rand: Random, targets: Seq[Target], rows: Seq[InternalRow]): String = {
    val comparable = targets.filter(t => SqlLiterals.comparable(t.dataType))
    if (comparable.isEmpty || rand.nextInt(6) == 0) {
      val t = targets(rand.nextInt(targets.size))
      s"${t.sql} IS ${if (rand.nextBoolean()) "" else "NOT "}NULL"
    } else {
      val t = comparable(rand.nextInt(comparable.size))
      def literal() = SqlLiterals.render(value(rand, t, rows), t.dataType, rand)
      rand.nextInt(8) match {
        case 0 => s"${t.sql} = ${literal()}"
        case 1 => s"${t.sql} < ${literal()}"
        case 2 => s"${t.sql} <= ${literal()}"
        case 3 => s"${t.sql} > ${literal()}"
        case 4 => s"${t.sql} >= ${literal()}"
        case 5 => s"${t.sql} <=> ${literal()}"
        case _ =>
          val list = Seq.fill(1 + rand.nextInt(3))(literal()) ++ (if (rand.nextInt(4) == 0) Seq("NULL") else Nil)
          s"${t.sql} ${if (rand.nextInt(4) == 0) "NOT " else ""}IN (${list.mkString(", ")})"
      }
    }
  }

  private val floatEdges = Seq(Float.NaN, Float.PositiveInfinity, Float.NegativeInfinity, 0.0f, -0.0f)
  private val doubleEdges = Seq(Double.NaN, Double.PositiveInfinity, Double.NegativeInfinity, 0.0, -0.0)

  /** A value of `t` from the rows (non-null when there is one), or an edge value of its type. */
  private def value(rand: Random, t: Target, rows: Seq[InternalRow]): Any = t.dataType match {
    case FloatType if rand.nextInt(4) == 0 => floatEdges(rand.nextInt(floatEdges.size))
    case DoubleType if rand.nextInt(4) == 0 => doubleEdges(rand.nextInt(doubleEdges.size))
    case _ =>
      val values = rows.map(t.valueIn)
      val present = values.filter(_ != null)
      if (present.isEmpty) null else present(rand.nextInt(present.size))
  }
}
