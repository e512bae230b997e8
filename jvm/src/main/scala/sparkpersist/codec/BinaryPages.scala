package sparkpersist.codec

import java.nio.ByteBuffer

import org.apache.parquet.bytes.{ByteBufferInputStream, BytesUtils}
import org.apache.parquet.column.{ColumnDescriptor, Dictionary, Encoding, ValuesType}
import org.apache.parquet.column.page.{DataPage, DataPageV1, DataPageV2, PageReader}
import org.apache.parquet.column.values.ValuesReader
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder
import org.apache.parquet.io.ParquetDecodingException

/**
 * What [[ParquetBytes.Reader.binaryRowsOf]] hands each row of a binary column: its value's bytes
 * (valid during the call only: they may be the page's own bytes), or that it is null. Arguments
 * are primitives, so a million rows box nothing.
 */
private[sparkpersist] trait BinaryRows {
  def value(row: Long, bytes: Array[Byte], from: Int, length: Int): Unit
  def none(row: Long): Unit
}

/**
 * The values of a flat binary column read page by page with Parquet's own page and level
 * decoders, as its record reader (ColumnReaderBase) decodes them, but without the record
 * reader's per-value machinery (a converter binding, a ByteBuffer view and closures per value).
 * PLAIN values (the encoding the state log writes) are handed over in place from the page's
 * bytes, so nothing is allocated per value: Parquet's own PLAIN reader makes a ByteBuffer view and
 * a Binary of each, which costs several times the copy (a million stats values: about 15 ms
 * against 80 on this machine); values of any other encoding (dictionaries included) go through
 * Parquet's reader of that encoding. Pages of either version are read.
 */
private[codec] object BinaryPages {

  /**
   * Hands `to` every row of the pages of `pages` (of column `column`, which is not repeated), in
   * order; a page's rows are numbered from its first row index in the row group (when the reader
   * was filtered by an offset index, [[DataPage.getFirstRowIndex]]) or else after the page before,
   * plus `first`, the row group's first row in the file.
   */
  def read(column: ColumnDescriptor, pages: PageReader, first: Long, to: BinaryRows): Unit = {
    require(column.getMaxRepetitionLevel == 0, s"column ${column.getPath.mkString(".")} is repeated")
    val dictionary = Option(pages.readDictionaryPage()).map(d => d.getEncoding.initDictionary(column, d))
    val maxDefinition = column.getMaxDefinitionLevel
    var next = 0L
    var page = pages.readPage()
    while (page != null) {
      val start = page.getFirstRowIndex.orElse(java.lang.Long.valueOf(next)).longValue
      val count = page.getValueCount
      val (levels, values) = decoders(column, page, dictionary)
      var i = 0
      while (i < count) {
        if (levels() == maxDefinition) values.next(first + start + i, to) else to.none(first + start + i)
        i += 1
      }
      next = start + count
      page = pages.readPage()
    }
  }

  /** The definition levels (one per call) and the values of `page`, positioned at its first row. */
  private def decoders(column: ColumnDescriptor, page: DataPage, dictionary: Option[Dictionary]): (() => Int, Values) =
    page.accept(new DataPage.Visitor[(() => Int, Values)] {
      // Levels, then values, back to back in the page's bytes (ColumnReaderBase.readPageV1).
      def visit(p: DataPageV1): (() => Int, Values) = {
        val in = p.getBytes.toInputStream
        p.getRlEncoding.getValuesReader(column, ValuesType.REPETITION_LEVEL).initFromPage(p.getValueCount, in)
        val levels = p.getDlEncoding.getValuesReader(column, ValuesType.DEFINITION_LEVEL)
        levels.initFromPage(p.getValueCount, in)
        (() => levels.readInteger(), valuesOf(column, p.getValueEncoding, p.getValueCount, in, dictionary))
      }
      // Levels apart from the values, run-length encoded without a length (ColumnReaderBase.readPageV2).
      def visit(p: DataPageV2): (() => Int, Values) = {
        val maxDefinition = column.getMaxDefinitionLevel
        val levels = if (maxDefinition == 0) () => 0 else {
          val decoder = new RunLengthBitPackingHybridDecoder(BytesUtils.getWidthFromMaxInt(maxDefinition),
            p.getDefinitionLevels.toInputStream)
          () => decoder.readInt()
        }
        (levels, valuesOf(column, p.getDataEncoding, p.getValueCount, p.getData.toInputStream, dictionary))
      }
    })

  /** The values of a page in `encoding`, the rest of `in`. */
  private def valuesOf(column: ColumnDescriptor, encoding: Encoding, count: Int, in: ByteBufferInputStream,
      dictionary: Option[Dictionary]): Values =
    if (encoding == Encoding.PLAIN) new PlainValues(in.slice(in.available()))
    else {
      val reader =
        if (!encoding.usesDictionary) encoding.getValuesReader(column, ValuesType.VALUES)
        else encoding.getDictionaryBasedValuesReader(column, ValuesType.VALUES, dictionary.getOrElse(
          throw new ParquetDecodingException(s"a page of ${column.getPath.mkString(".")} uses a dictionary the chunk lacks")))
      reader.initFromPage(count, in)
      new DecodedValues(reader)
    }

  /** The non-null values of one page, one after another. */
  private sealed trait Values {
    /** Hands `to` the next value, as row `row`'s. */
    def next(row: Long, to: BinaryRows): Unit
  }

  /**
   * PLAIN binary values (each a 4-byte little-endian length, then that many bytes), handed over
   * in place from the page's bytes. A length running past the page is damage (a page read without
   * checksums may hold any bytes).
   */
  private final class PlainValues(page: ByteBuffer) extends Values {
    private val bytes = if (page.hasArray) page.array else {
      val copy = new Array[Byte](page.remaining)
      page.duplicate().get(copy)
      copy
    }
    private var at = if (page.hasArray) page.arrayOffset + page.position else 0
    private val end = at + page.remaining

    def next(row: Long, to: BinaryRows): Unit = {
      if (end - at < 4) throw new ParquetDecodingException(s"a value's length at $at runs past its page")
      val length = BytesUtils.readIntLittleEndian(bytes, at)
      if (length < 0 || length > end - at - 4) throw new ParquetDecodingException(s"a value of $length bytes at $at runs past its page")
      to.value(row, bytes, at + 4, length)
      at += 4 + length
    }
  }

  /** Values of another encoding, through Parquet's reader of it. */
  private final class DecodedValues(reader: ValuesReader) extends Values {
    def next(row: Long, to: BinaryRows): Unit = {
      val b = reader.readBytes().toByteBuffer
      if (b.hasArray) to.value(row, b.array, b.arrayOffset + b.position, b.remaining)
      else {
        val copy = new Array[Byte](b.remaining)
        b.get(copy)
        to.value(row, copy, 0, copy.length)
      }
    }
  }
}
