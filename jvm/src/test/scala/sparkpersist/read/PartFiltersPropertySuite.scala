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
import sparkpersist.consolidate.KeyRanges
import sparkpersist.schema.ShardSchema
import sparkpersist.write.{RunSpec, RunWriter, WrittenPart}

/**
 * The filters a part hands to Parquet never drop a row Spark keeps: random parts (a row group of
 * one to three rows, pages of one or two) over every type [[PartFilters]] may hand to Parquet are
 * read with Parquet filters and without any, and the rows Spark keeps of both reads must be the
 * same ([[PartFiltersGen]]: dates and timestamps around the Julian–Gregorian gap and far from
 * today, strings of invalid UTF-8, -0.0 and NaN, extremes). The filters are those of pushed
 * predicates (Spark's per-row evaluation keeps a row) and those of consolidation tasks' key ranges
 * ([[KeyRanges]]: a task keeps the rows of its range).
 */
class PartFiltersPropertySuite extends PersistSparkSession with ScalaCheckDrivenPropertyChecks {
  import PartFiltersPropertySuite.Kept

  private val attributes = PartFiltersGen.columns.map(f => AttributeReference(f.name, f.dataType)())
  private val schema = ShardSchema.fromStruct(StructType(PartFiltersGen.columns))
  /** Every update of a case's part: time 1, diff +1. */
  private val Time = 1L

  test("a part read with the Parquet filters of a predicate keeps exactly the rows Spark keeps reading it without them") {
    var (pushed, skipped, passed) = (0, 0, 0)
    forEachCase { (c, part) =>
      c.predicates.foreach { predicate =>
        val filters = toV2(predicate).flatMap(PartFilters.toParquet(_, schema)).toSeq
        val bound = BindReferences.bindReference(predicate, attributes)
        val referenced = predicate.references.toSeq.map(a => attributes.indexWhere(_.exprId == a.exprId))
        val kept = part.compare(filters, _.filter(r => bound.eval(r) == true), predicate.sql, describe(_, referenced))
        if (filters.nonEmpty) pushed += 1
        if (kept.skipped) skipped += 1
        passed += kept.rows
      }
    }
    // Not vacuous: filters reached Parquet and skipped row groups, and predicates kept rows.
    assert(pushed > 400 && skipped > 250 && passed > 1500, (pushed, skipped, passed))
  }

  test("a part read with the Parquet filters of a consolidation task's key range keeps every row of the range") {
    var (pushed, skipped, passed) = (0, 0, 0)
    forEachCase { (c, part) =>
      c.keyRanges.foreach { case (ordinal, splits) =>
        val ranges = KeyRanges(schema.columns(ordinal), splits)
        val dataType = attributes(ordinal).dataType
        (0 until ranges.count).foreach { i =>
          val filters = ranges.parquetFilters(i)
          val kept = part.compare(filters,
            _.filter(r => ranges.rangeOf(if (r.isNullAt(ordinal)) null else r.get(ordinal, dataType)) == i),
            s"range $i of ${ranges.describe} split at ${splits.map(Literal(_, dataType).sql).mkString(", ")}",
            describe(_, Seq(ordinal)))
          if (filters.nonEmpty) pushed += 1
          if (kept.skipped) skipped += 1
          passed += kept.rows
        }
      }
    }
    assert(pushed > 150 && skipped > 100 && passed > 1200, (pushed, skipped, passed))
  }

  /** A case's part, read whole once, and read again with filters to compare. */
  private final class CaseRead(reader: PartFileReader, part: WrittenPart) {
    private val all = read(Nil)._1

    /**
     * Fails unless the rows `keep` keeps of the part read with `filters` are those it keeps of the
     * whole part (`what` and `show` describe the filters and a lost row).
     */
    def compare(filters: Seq[Filter], keep: Seq[InternalRow] => Seq[InternalRow], what: => String,
        show: InternalRow => String): Kept = {
      val (rows, stats) = read(filters)
      val (expected, kept) = (keep(all), keep(rows))
      if (kept != expected) fail(s"$what with Parquet filters ${filters.mkString(", ")} lost rows " +
        expected.diff(kept).map(show).mkString("; "))
      Kept(stats.rowGroupsRead < stats.rowGroups, expected.size)
    }

    /** The rows of the part read with `filters` (copied), and the row groups read. */
    private def read(filters: Seq[Filter]): (Seq[InternalRow], PartReadStats) = {
      val open = new OpenFiles
      try {
        val unsafe = UnsafeProjection.create(reader.schema)
        val rows = reader.rowsAsOf(PartFile.of(part.path, part.meta, verify = false), Time, open, filters)
          .map(unsafe(_).copy()).toList
        (rows, open.stats)
      } finally open.close()
    }
  }

  /** Runs `check` on 100 random cases, each written as a part and read whole. */
  private def forEachCase(check: (PartFiltersGen.Case, CaseRead) => Unit): Unit = {
    val dir = Files.createTempDirectory(root.toPath, "parts")
    val reader = PartFileReader(spark, schema, schema.dataSchema)
    var partNo = 0
    forAll(PartFiltersGen.cases(attributes), minSuccessful(100)) { c =>
      partNo += 1
      check(c, new CaseRead(reader, write(c, new Path(dir.resolve(s"case-$partNo").toUri))))
    }
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

  /** The values of `row` at `ordinals`, strings and binaries with their bytes. */
  private def describe(row: InternalRow, ordinals: Seq[Int]): String =
    ordinals.map { i =>
      val a = attributes(i)
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

object PartFiltersPropertySuite {
  /** What a comparison saw: whether the filters skipped row groups, and how many rows both reads kept. */
  private final case class Kept(skipped: Boolean, rows: Int)
}
