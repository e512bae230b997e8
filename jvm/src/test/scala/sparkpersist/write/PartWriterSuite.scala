package sparkpersist.write

import java.io.File
import java.nio.file.Files


import org.apache.spark.sql.{QueryTest, Row}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.test.SharedSparkSession
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkpersist.PersistConf
import sparkpersist.read.{OpenFiles, PartFile, PartFileReader}
import sparkpersist.schema.{ReservedColumns, ShardSchema}
import sparkpersist.shard.{PartFormat, ShardState}
import sparkpersist.stats.{ColumnStats, PartStats, StatsBudget}

/** One part written alone: its footer describes it, its rows read back, its stats match. */
class PartWriterSuite extends QueryTest with SharedSparkSession {

  private val schema = ShardSchema.fromStruct(
    StructType(Seq(StructField("k", LongType, nullable = false), StructField("s", StringType))), Seq("k"))
  private val budget = new StatsBudget(schema, Set.empty, PersistConf.StatsBudgetBytes.default)

  private def run(dir: File, rows: Seq[InternalRow], maxRows: Long): Seq[WrittenPart] = {
    val conf = new SerializableConf(PartWriteSettings.hadoopConf(spark, "events", schema, stampTime = None))
    val spec = RunSpec(dir.getPath, schema, conf, maxRows, boundChars = 64, stampTime = None, budget)
    RunWriter.writeAll(spec, partition = 3, attempt = 0, rows.iterator)
  }

  private def row(k: Long, s: String, time: Long, diff: Long): InternalRow =
    InternalRow(k, if (s == null) null else UTF8String.fromString(s), time, diff)

  test("a part read alone carries field ids, format version and the logical schema") {
    val dir = Files.createTempDirectory("part").toFile
    val Seq(part) = run(dir, Seq(row(1, "a", 10, 1), row(2, null, 11, 1)), maxRows = 10)
    val (ids, kv) = PartFooters.read(part.path, spark.sparkContext.hadoopConfiguration)
    assert(ids === Seq("k" -> 1, "s" -> 2, "time" -> ReservedColumns.TimeFieldId, "diff" -> ReservedColumns.DiffFieldId))
    assert(kv(PartFormat.FormatVersionKey) === ShardState.FormatVersion.toString)
    assert(kv(PartFormat.ShardKey) === "events")
    assert(kv(PartFormat.OrderByKey) === "k")
    assert(!kv.contains(PartFormat.TimeKey))
    val logical = DataType.fromJson(kv(PartFormat.SchemaKey)).asInstanceOf[StructType]
    assert(logical.map(f => f.name -> f.metadata.getLong(PartFormat.FieldIdKey)) === Seq("k" -> 1L, "s" -> 2L))
    assert(logical.map(_.dataType) === Seq(LongType, StringType))
    checkAnswer(spark.read.parquet(part.path), Seq(Row(1L, "a", 10L, 1L), Row(2L, null, 11L, 1L)))
  }

  test("a stamped part stores only the data columns and names its time in the footer") {
    val dir = Files.createTempDirectory("stamped").toFile
    val conf = new SerializableConf(PartWriteSettings.hadoopConf(spark, "events", schema, stampTime = Some(42L)))
    val spec = RunSpec(dir.getPath, schema, conf, 10, boundChars = 64, stampTime = Some(42L), budget)
    val Seq(part) = RunWriter.writeAll(spec, partition = 0, attempt = 0,
      Iterator(InternalRow(1L, UTF8String.fromString("a")), InternalRow(2L, null)))
    assert((part.meta.rowCount, part.meta.minTime, part.meta.maxTime, part.meta.hasRetractions) === (2L, 42L, 42L, false))
    val (fields, footer) = PartFooters.read(part.path, spark.sparkContext.hadoopConfiguration)
    assert(fields === Seq("k" -> 1, "s" -> 2))
    assert(footer.get(PartFormat.TimeKey) === Some("42"))
    // Read back as the scan reads it: the constant time and diff come back after the data columns.
    val partReader = PartFileReader(spark, schema, schema.dataSchema)
    val open = new OpenFiles
    try {
      val rows = partReader.rowsAsOf(PartFile.of(part.path, part.meta, verify = false), asOf = 42L, open)
        .map(r => (r.getLong(0), if (r.isNullAt(1)) null else r.getUTF8String(1).toString, r.getLong(2), r.getLong(3))).toList
      assert(rows === List((1L, "a", 42L, 1L), (2L, null, 42L, 1L)))
      assert(partReader.rowsAsOf(PartFile.of(part.path, part.meta, verify = false), asOf = 41L, open).isEmpty)
    } finally open.close()
  }

  test("a run rolls over at maxRowsPerPart; each part's stats and metadata are its own") {
    val dir = Files.createTempDirectory("run").toFile
    val rows = (1 to 5).map(i => row(i, "v" + i, 100 + i, if (i == 4) -1 else 1))
    val parts = run(dir, rows, maxRows = 2)
    assert(parts.map(p => new File(p.path).getName) ===
      Seq("part-00003-0000-a0.parquet", "part-00003-0001-a0.parquet", "part-00003-0002-a0.parquet"))
    assert(parts.map(p => (p.meta.rowCount, p.meta.minTime, p.meta.maxTime, p.meta.hasRetractions)) ===
      Seq((2L, 101L, 102L, false), (2L, 103L, 104L, true), (1L, 105L, 105L, false)))
    parts.foreach(p => assert(p.meta.bytes === new File(p.path).length()))
    val str = (s: String) => Some(UTF8String.fromString(s))
    assert(parts(1).meta.stats === Some(PartStats(2, parts(1).meta.bytes, Map(
      1 -> ColumnStats(0, Some(3L), Some(4L)), 2 -> ColumnStats(0, str("v3"), str("v4"))))))
    checkAnswer(spark.read.parquet(parts(2).path), Seq(Row(5L, "v5", 105L, 1L)))
  }

  test("a failing run deletes every part it started") {
    val dir = Files.createTempDirectory("fail").toFile
    val rows = Iterator.tabulate(5)(i => row(i, "x", 1, 1)) ++ Iterator(throw new IllegalStateException("boom"))
    val conf = new SerializableConf(PartWriteSettings.hadoopConf(spark, "events", schema, stampTime = None))
    val e = intercept[IllegalStateException](
      RunWriter.writeAll(RunSpec(dir.getPath, schema, conf, 2, 64, None, budget), 0, 0, rows))
    assert(e.getMessage === "boom")
    assert(dir.listFiles().filter(_.getName.endsWith(".parquet")).toSeq === Nil)
  }

  test("string bounds are the file's: many row groups, all-null row groups, bytes that are not UTF-8") {
    val r = new scala.util.Random(35)
    def value(i: Int): UTF8String =
      if (i < 300 || r.nextInt(10) == 0) null // the first row groups hold only nulls
      else r.nextInt(4) match {
        case 0 => UTF8String.EMPTY_UTF8
        case 1 => UTF8String.fromBytes(Array.fill(1 + r.nextInt(6))((r.nextInt(256) - 128).toByte)) // any bytes
        case 2 => UTF8String.fromString("é" * (1 + r.nextInt(80))) // past the 64 code points kept
        case _ => UTF8String.fromString("v" + r.nextInt(100000))
      }
    val values = (0 until 3000).map(value)
    val conf = PartWriteSettings.hadoopConf(spark, "events", schema, stampTime = None)
    conf.setLong("parquet.block.size", 1L) // a row group per check: every 100 rows
    val spec = RunSpec(Files.createTempDirectory("rowgroups").toFile.getPath, schema, new SerializableConf(conf),
      10000, boundChars = 64, stampTime = None, budget)
    val Seq(part) = RunWriter.writeAll(spec, 0, 0, values.indices.iterator.map(i => InternalRow(i.toLong, values(i), 1L, 1L)))
    val file = org.apache.parquet.hadoop.ParquetFileReader.open(org.apache.parquet.hadoop.util.HadoopInputFile
      .fromPath(new org.apache.hadoop.fs.Path(part.path), conf))
    try assert(file.getFooter.getBlocks.size() >= 10) finally file.close()
    // The bounds a collector comparing every value itself finds.
    val own = new sparkpersist.stats.StringCollector(64)
    values.foreach(v => own.update(InternalRow(v), 0))
    assert(part.meta.stats.get.columns(2) === own.result())
  }

  test("long strings keep their bounds through Parquet's truncated statistics; a file without them gives none") {
    val rows = Seq(row(1, "a", 10, 1), row(2, "x" * 5000, 11, 1), row(3, null, 12, 1))
    val Seq(truncated) = run(Files.createTempDirectory("long").toFile, rows, maxRows = 10)
    assert(truncated.meta.stats.get.columns(2) ===
      ColumnStats(1, Some(UTF8String.fromString("a")), Some(UTF8String.fromString("x" * 63 + "y"))))
    // A user's own setting wins: statistics untruncated, which Parquet leaves out past 4 KiB.
    val conf = PartWriteSettings.hadoopConf(spark, "events", schema, stampTime = None)
    assert(conf.getInt("parquet.statistics.truncate.length", 0) === PartWriteSettings.statisticsTruncateBytes(64))
    conf.setInt("parquet.statistics.truncate.length", Int.MaxValue)
    val spec = RunSpec(Files.createTempDirectory("untruncated").toFile.getPath, schema, new SerializableConf(conf),
      10, boundChars = 64, stampTime = None, budget)
    val Seq(whole) = RunWriter.writeAll(spec, 0, 0, rows.iterator)
    assert(whole.meta.stats.get.columns(2) === ColumnStats(1, None, None))
    assert(whole.meta.stats.get.columns(1) === ColumnStats(0, Some(1L), Some(3L)))
  }
}
