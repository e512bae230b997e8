package sparkpersist.read

import java.nio.file.Files

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, BindReferences, Expression, Literal, UnsafeProjection}
import org.apache.spark.sql.catalyst.util.V2ExpressionBuilder
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.{BinaryType, StringType, StructType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatestplus.scalacheck.ScalaCheckDrivenPropertyChecks

import sparkpersist.PersistSparkSession
import sparkpersist.schema.ShardSchema
import sparkpersist.write.{RunSpec, RunWriter, WrittenPart}

/**
 * The filters a part hands to Parquet never drop a row Spark keeps: random parts (a row group of
 * one to three rows, pages of one or two) over every type [[PartFilters]] may hand to Parquet are
 * read with the Parquet filters of random predicates and without any; Spark's own per-row
 * evaluation of the predicate must keep exactly the same rows of both reads ([[PartFiltersGen]]:
 * dates and timestamps around the Julian–Gregorian gap and far from today, strings of invalid
 * UTF-8, -0.0 and NaN, extremes).
 */
class PartFiltersPropertySuite extends PersistSparkSession with ScalaCheckDrivenPropertyChecks {

  private val attributes = PartFiltersGen.columns.map(f => AttributeReference(f.name, f.dataType)())
  private val schema = ShardSchema.fromStruct(StructType(PartFiltersGen.columns))
  /** Every update of a case's part: time 1, diff +1. */
  private val Time = 1L

  test("a part read with its Parquet filters keeps exactly the rows Spark keeps reading it without them") {
    val dir = Files.createTempDirectory(root.toPath, "parts")
    val reader = PartFileReader(spark, schema, schema.dataSchema)
    val unsafe = UnsafeProjection.create(reader.schema)
    var (partNo, pushed, skipped, passed) = (0, 0, 0, 0)
    forAll(PartFiltersGen.cases(attributes), minSuccessful(100)) { c =>
      partNo += 1
      val part = write(c, new Path(dir.resolve(s"case-$partNo").toUri))
      val (all, _) = read(reader, part, Nil, unsafe)
      c.predicates.foreach { predicate =>
        val filters = toV2(predicate).flatMap(PartFilters.toParquet(_, schema)).toSeq
        val (read, stats) = this.read(reader, part, filters, unsafe)
        val bound = BindReferences.bindReference(predicate, attributes)
        def passing(rows: Seq[InternalRow]) = rows.filter(r => bound.eval(r) == true)
        val (expected, kept) = (passing(all), passing(read))
        if (kept != expected) fail(s"${predicate.sql} with Parquet filters ${filters.mkString(", ")} lost rows " +
          expected.diff(kept).map(describe(_, predicate)).mkString("; "))
        if (filters.nonEmpty) pushed += 1
        if (stats.rowGroupsRead < stats.rowGroups) skipped += 1
        passed += expected.size
      }
    }
    // Not vacuous: filters reached Parquet and skipped row groups, and predicates kept rows.
    assert(pushed > 300 && skipped > 100 && passed > 1000, (pushed, skipped, passed))
  }

  /** The predicate Spark hands a scan for `predicate` (its pushdown's own translation), if any. */
  private def toV2(predicate: Expression): Option[Predicate] =
    new V2ExpressionBuilder(predicate, isPredicate = true).build().collect { case p: Predicate => p }

  /** Writes the rows of `c` as one part in `dir`, in row groups and pages of the case's sizes. */
  private def write(c: PartFiltersGen.Case, dir: Path): WrittenPart = {
    val spec = withSQLConf("parquet.block.row.count.limit" -> c.rowsPerGroup.toString,
        "parquet.page.row.count.limit" -> c.rowsPerPage.toString) {
      RunSpec.forSession(spark, "cases", schema, dir, maxRowsPerPart = None, stampTime = None)
    }
    val Seq(part) = RunWriter.writeAll(spec, partition = 0, attempt = 0,
      c.rows.iterator.map(values => InternalRow.fromSeq(values :+ Time :+ 1L)))
    part
  }

  /** The rows of `part` read with `filters` (copied), and the row groups read. */
  private def read(reader: PartFileReader, part: WrittenPart, filters: Seq[Filter],
      unsafe: UnsafeProjection): (Seq[InternalRow], PartReadStats) = {
    val open = new OpenFiles
    try {
      val rows = reader.rowsAsOf(PartFile.of(part.path, part.meta, verify = false), Time, open, filters)
        .map(unsafe(_).copy()).toList
      (rows, open.stats)
    } finally open.close()
  }

  /** The values of `row` in the columns `predicate` reads, strings and binaries with their bytes. */
  private def describe(row: InternalRow, predicate: Expression): String =
    predicate.references.toSeq.map { a =>
      val i = attributes.indexWhere(_.exprId == a.exprId)
      val v = if (row.isNullAt(i)) null else row.get(i, a.dataType)
      val shown = (a.dataType, v) match {
        case (_: StringType, s: UTF8String) => s"'$s' (${hex(s.getBytes)})"
        case (BinaryType, b: Array[Byte]) => hex(b)
        case _ => Literal(v, a.dataType).sql
      }
      s"${a.name}=$shown"
    }.mkString("[", ", ", "]")

  private def hex(bytes: Array[Byte]): String = bytes.map(b => f"${b & 0xff}%02X").mkString("X'", "", "'")
}
