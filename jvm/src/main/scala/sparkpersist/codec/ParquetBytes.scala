package sparkpersist.codec

import java.io.{ByteArrayInputStream, ByteArrayOutputStream}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.ParquetReadOptions
import org.apache.parquet.column.ColumnReader
import org.apache.parquet.column.impl.ColumnReadStoreImpl
import org.apache.parquet.column.page.PageReadStore
import org.apache.parquet.conf.PlainParquetConfiguration
import org.apache.parquet.example.data.Group
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.example.ExampleParquetWriter
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.hadoop.metadata.CompressionCodecName
import org.apache.parquet.internal.filter2.columnindex.RowRanges
import org.apache.parquet.io.{DelegatingSeekableInputStream, InputFile, OutputFile, PositionOutputStream, SeekableInputStream}
import org.apache.parquet.schema.MessageType

/**
 * A Parquet file in memory, with the Parquet library Spark ships: written from rows
 * ([[ParquetBytes.write]]) and read back column by column ([[ParquetBytes.Reader]]), so a file
 * can be stored and read as bytes by whatever stores them (state files are written whole,
 * put-if-absent). Pages are plain and uncompressed (a damaged size in a page header cannot make
 * the reader allocate what it claims) and carry CRC-32 checksums, which the reader verifies.
 */
private[sparkpersist] object ParquetBytes {

  /**
   * The bytes of a Parquet file of `schema` holding `rows`, with `metadata` in its footer, in
   * pages of at most `pageRows` rows (so a reader of a few rows reads few bytes, [[Reader.binaryRowsOf]]).
   */
  def write(schema: MessageType, metadata: Map[String, String], rowGroupBytes: Long, pageRows: Int)(
      rows: (Group => Unit) => Unit): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    val writer = ExampleParquetWriter.builder(new BytesOutputFile(out))
      .withConf(new Configuration(false))
      .withType(schema)
      .withExtraMetaData(metadata.asJava)
      .withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
      .withDictionaryEncoding(false)
      .withRowGroupSize(rowGroupBytes)
      .withPageWriteChecksumEnabled(true)
      .withPageRowCountLimit(pageRows)
      .build()
    try rows(writer.write) finally writer.close()
    out.toByteArray
  }

  /**
   * Reads a Parquet file in `bytes`: its footer's key-value metadata, then each column's values
   * over all row groups. Fails with Parquet's exceptions if the bytes are not such a file.
   * `parsed`, when given, is the file's footer as another reader of these bytes parsed it.
   * `columns`, when given, projects the read: only those top-level columns (of the ones the file
   * holds) are read from the row groups, the other column chunks are never touched.
   */
  final class Reader(bytes: Array[Byte], columns: Option[String => Boolean] = None, parsed: Option[ParquetMetadata] = None)
      extends AutoCloseable {
    private val file = {
      // A plain configuration: a Hadoop one would parse its XML defaults at every reader.
      val options = ParquetReadOptions.builder(new PlainParquetConfiguration()).usePageChecksumVerification(true).build()
      val in = new BytesInputFile(bytes)
      parsed.fold(ParquetFileReader.open(in, options))(ParquetFileReader.open(in, _, options, in.newStream()))
    }
    private val footer = file.getFooter.getFileMetaData

    /**
     * The footer of the file, parsed: given to another reader of the same bytes (`parsed`), it spares
     * that reader parsing it again (a rollup of a million parts has a footer of a few hundred
     * kilobytes, which its stats loads would otherwise parse once per chunk of segments).
     */
    def parsedFooter: ParquetMetadata = file.getFooter

    /** The schema of the whole file. */
    def fileSchema: MessageType = footer.getSchema

    /** The schema of the columns read (the whole file's without a projection). */
    val schema: MessageType = columns match {
      case None => fileSchema
      case Some(read) =>
        val projected = new MessageType(fileSchema.getName, fileSchema.getFields.asScala.filter(f => read(f.getName)).asJava)
        file.setRequestedSchema(projected)
        projected
    }

    def metadata: Map[String, String] = footer.getKeyValueMetaData.asScala.toMap

    def rowCount: Long = file.getRecordCount

    /**
     * Hands `read` each row group in order, with its row count and a reader of each of its
     * columns by name ([[Column]]), which must read every value of its column in row order.
     */
    def rowGroups(read: (Long, String => Column) => Unit): Unit = {
      var pages = file.readNextRowGroup()
      while (pages != null) {
        val store = new ColumnReadStoreImpl(pages, new GroupRecordConverter(schema).getRootConverter, schema,
          footer.getCreatedBy)
        read(pages.getRowCount, name => {
          val descriptor = schema.getColumnDescription(Array(name))
          new Column(store.getColumnReader(descriptor), descriptor.getMaxDefinitionLevel)
        })
        pages = file.readNextRowGroup()
      }
    }

    /**
     * Hands `to` the values of binary column `name` (one of those read, not repeated) at the rows
     * in `ranges` (ascending, disjoint `[from, until)` ranges of the file's rows), and at the other
     * rows of the pages holding them, each row by its index in the file: only those pages are
     * read, located by the column chunks' offset indexes (a chunk without one is read whole), and
     * decoded page by page ([[BinaryPages]]), nothing allocated per value.
     */
    def binaryRowsOf(name: String, ranges: Seq[(Long, Long)])(to: BinaryRows): Unit = {
      val descriptor = schema.getColumnDescription(Array(name))
      var first = 0L
      file.getRowGroups.asScala.zipWithIndex.foreach { case (block, b) =>
        val rows = block.getRowCount
        val local = ranges.collect { case (from, until) if from < first + rows && until > first =>
          (math.max(from, first) - first, math.min(until, first + rows) - first)
        }
        if (local.nonEmpty) {
          val chunk = block.getColumns.asScala.find(_.getPath.toDotString == name)
            .getOrElse(throw new IllegalArgumentException(s"row group $b lacks column $name"))
          val index = Option(file.readOffsetIndex(chunk))
          val selected = index.fold(RowRanges.createSingle(rows)) { oi =>
            val pages = (0 until oi.getPageCount).filter { p =>
              val (pageFirst, pageLast) = (oi.getFirstRowIndex(p), oi.getLastRowIndex(p, rows))
              local.exists { case (from, until) => from <= pageLast && until > pageFirst }
            }
            RowRanges.create(rows, java.util.stream.IntStream.of(pages: _*).iterator(), oi)
          }
          // As the interface: the class Parquet returns is not public.
          val pages: PageReadStore = file.readFilteredRowGroup(b, selected)
          BinaryPages.read(descriptor, pages.getPageReader(descriptor), first, to)
        }
        first += rows
      }
    }

    def close(): Unit = file.close()
  }

  /** The values of one column of a row group, read one after another (each read moves to the next). */
  final class Column private[ParquetBytes] (reader: ColumnReader, maxDefinition: Int) {
    /** Whether the next value is not null (without moving past it). */
    def present: Boolean = reader.getCurrentDefinitionLevel == maxDefinition

    def long(): Long = next(reader.getLong)
    def int(): Int = next(reader.getInteger)
    def boolean(): Boolean = next(reader.getBoolean)
    def string(): String = next(reader.getBinary.toStringUsingUTF8)

    /** Moves past the next value (null or not). */
    def skip(): Unit = {
      if (present) reader.skip()
      reader.consume()
    }

    private def next[T](value: => T): T = {
      if (!present) throw new IllegalArgumentException(s"column ${reader.getDescriptor.getPath.mkString(".")} holds a null where a value is required")
      val v = value
      reader.consume()
      v
    }
  }

  private final class BytesOutputFile(out: ByteArrayOutputStream) extends OutputFile {
    def create(blockSizeHint: Long): PositionOutputStream = new PositionOutputStream {
      def getPos: Long = out.size().toLong
      def write(b: Int): Unit = out.write(b)
      override def write(b: Array[Byte], off: Int, len: Int): Unit = out.write(b, off, len)
    }
    def createOrOverwrite(blockSizeHint: Long): PositionOutputStream = create(blockSizeHint)
    def supportsBlockSize(): Boolean = false
    def defaultBlockSize(): Long = 0L
  }

  private final class BytesInputFile(bytes: Array[Byte]) extends InputFile {
    def getLength: Long = bytes.length.toLong
    def newStream(): SeekableInputStream = {
      val in = new SeekableBytes(bytes)
      new DelegatingSeekableInputStream(in) {
        def getPos: Long = in.position.toLong
        def seek(newPos: Long): Unit = in.seekTo(newPos)
      }
    }
  }

  private final class SeekableBytes(bytes: Array[Byte]) extends ByteArrayInputStream(bytes) {
    def position: Int = pos
    def seekTo(p: Long): Unit = {
      require(p >= 0 && p <= bytes.length, s"seek to $p outside a file of ${bytes.length} bytes")
      pos = p.toInt
    }
  }
}
