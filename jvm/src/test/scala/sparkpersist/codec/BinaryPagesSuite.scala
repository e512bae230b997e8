package sparkpersist.codec

import java.nio.file.Files

import scala.collection.mutable

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.column.ParquetProperties.WriterVersion
import org.apache.parquet.example.data.Group
import org.apache.parquet.example.data.simple.SimpleGroup
import org.apache.parquet.hadoop.example.ExampleParquetWriter
import org.apache.parquet.io.ParquetDecodingException
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.{MessageType, Types}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.{BINARY, INT32}
import org.scalatest.funsuite.AnyFunSuite

/**
 * A binary column read page by page ([[ParquetBytes.Reader.binaryRowsOf]], [[BinaryPages]]) reads
 * what Parquet wrote at each row, nulls included, from the pages holding the rows asked for
 * only, whatever the writer's page version and dictionary.
 */
class BinaryPagesSuite extends AnyFunSuite {

  private val schema: MessageType = Types.buildMessage().required(INT32).named("i").optional(BINARY).named("v").named("t")
  private val rows = 2500
  private val pageRows = 100

  /** Row `i`'s value: null on every seventh row, else of a length that varies (empty ones too). */
  private def valueOf(i: Int): Option[String] = if (i % 7 == 3) None else Some("v" * (i % 5) + i.toString.take(i % 4))

  private def group(i: Int): Group = {
    val g = new SimpleGroup(schema)
    g.add("i", i)
    valueOf(i).foreach(v => g.add("v", Binary.fromString(v)))
    g
  }

  /** As the state log writes: version 1 pages, plain, uncompressed, with checksums. */
  private lazy val plain: Array[Byte] =
    ParquetBytes.write(schema, Map.empty, 64L << 20, pageRows)(write => (0 until rows).foreach(i => write(group(i))))

  /** As other writers may: version 2 pages, dictionary encoded, in several row groups. */
  private lazy val dictionaryV2: Array[Byte] =
    written(_.withWriterVersion(WriterVersion.PARQUET_2_0).withDictionaryEncoding(true).withRowGroupSize(8L << 10))

  /** Version 1 plain pages as the state log writes them, but without checksums (other writers may leave them out). */
  private lazy val plainUnchecked: Array[Byte] = written(_.withDictionaryEncoding(false).withPageWriteChecksumEnabled(false))

  /** The bytes of a file of the rows written by a writer so configured, in pages of [[pageRows]] rows. */
  private def written(configure: ExampleParquetWriter.Builder => ExampleParquetWriter.Builder): Array[Byte] = {
    val dir = Files.createTempDirectory("binary-pages")
    val file = new Path(dir.resolve("t.parquet").toUri)
    val writer = configure(ExampleParquetWriter.builder(file).withConf(new Configuration(false)).withType(schema)
      .withPageRowCountLimit(pageRows)).build()
    try (0 until rows).foreach(i => writer.write(group(i))) finally writer.close()
    try Files.readAllBytes(dir.resolve("t.parquet"))
    finally org.apache.commons.io.FileUtils.deleteDirectory(dir.toFile)
  }

  /** Each row read, with its value. */
  private def read(bytes: Array[Byte], ranges: Seq[(Long, Long)]): Map[Long, Option[String]] = {
    val out = mutable.LinkedHashMap[Long, Option[String]]()
    val reader = new ParquetBytes.Reader(bytes, Some(_ == "v"))
    try reader.binaryRowsOf("v", ranges)(new BinaryRows {
      def value(row: Long, bytes: Array[Byte], from: Int, length: Int): Unit =
        assert(out.put(row, Some(new String(bytes, from, length, "UTF-8"))).isEmpty, s"row $row read twice")
      def none(row: Long): Unit = assert(out.put(row, None).isEmpty, s"row $row read twice")
    }) finally reader.close()
    assert(out.keys.toSeq == out.keys.toSeq.sorted, "rows in order")
    out.toMap
  }

  for ((written, bytes) <- Seq("plain v1 pages" -> (() => plain), "dictionary-encoded v2 pages" -> (() => dictionaryV2))) {
    test(s"every row of $written reads as written, nulls included") {
      val all = read(bytes(), Seq((0L, rows.toLong)))
      assert(all == (0 until rows).map(i => i.toLong -> valueOf(i)).toMap)
    }

    test(s"rows of $written asked for read from the pages holding them only") {
      val ranges = Seq((250L, 260L), (1099L, 1101L), (2499L, 2500L))
      val got = read(bytes(), ranges)
      ranges.foreach { case (from, until) => (from until until).foreach(r => assert(got.get(r).contains(valueOf(r.toInt)))) }
      got.foreach { case (r, v) => assert(v == valueOf(r.toInt), s"row $r") }
      if (written.startsWith("plain")) {
        // Pages of 100 rows: those of rows 200-299, 1000-1199 and 2400-2499.
        val pages = Set(200L until 300L, 1000L until 1200L, 2400L until 2500L).flatten
        assert(got.keySet == pages)
      } else assert(got.size < rows / 2, s"read ${got.size} rows")
    }
  }

  test("a damaged page fails the read instead of reading other bytes") {
    val damaged = plain.clone()
    // A byte of a value in the column's pages (the file starts with "PAR1", then column i's pages).
    val at = new String(damaged, "ISO-8859-1").indexOf("vvvv12")
    assert(at > 0)
    damaged(at) = 'w'.toByte
    intercept[Exception](read(damaged, Seq((0L, rows.toLong))))
  }

  test("a plain value whose length runs past its page fails the read, checksums or not") {
    assert(read(plainUnchecked, Seq((0L, rows.toLong))) == (0 until rows).map(i => i.toLong -> valueOf(i)).toMap)
    for (length <- Seq(-1, 1 << 20)) {
      val damaged = plainUnchecked.clone()
      val at = new String(damaged, "ISO-8859-1").indexOf("vvvv12")
      assert(at > 4)
      java.nio.ByteBuffer.wrap(damaged, at - 4, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(length)
      intercept[ParquetDecodingException](read(damaged, Seq((0L, rows.toLong))))
    }
  }
}
