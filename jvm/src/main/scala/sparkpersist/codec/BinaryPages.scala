package sparkpersist.codec

import org.apache.parquet.bytes.BytesUtils
import org.apache.parquet.column.{ColumnDescriptor, Dictionary, Encoding, ValuesType}
import org.apache.parquet.column.page.{DataPage, DataPageV1, DataPageV2, PageReader}
import org.apache.parquet.column.values.ValuesReader
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder
import org.apache.parquet.io.ParquetDecodingException

/**
 * What [[ParquetBytes.Reader.binaryRowsOf]] hands each row of a binary column: its value's bytes
 * (valid during the call only), or that it is null. Arguments are primitives, so a million rows
 * box nothing.
 */
private[sparkpersist] trait BinaryRows {
  def value(row: Long, bytes: Array[Byte], from: Int, length: Int): Unit
  def none(row: Long): Unit
}

/**
 * The values of a flat binary column read page by page with Parquet's own page, level and value
 * decoders, as its record reader (ColumnReaderBase) decodes them, but without the record
 * reader's per-value machinery (a converter binding, a ByteBuffer view and closures per value):
 * reading a million stats values this way costs a small fraction of reading them one by one
 * through a ColumnReader. Pages of either version, plain or dictionary encoded, are read.
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
        if (levels() == maxDefinition) {
          val b = values.readBytes().toByteBuffer
          if (b.hasArray) to.value(first + start + i, b.array, b.arrayOffset + b.position, b.remaining)
          else {
            val copy = new Array[Byte](b.remaining)
            b.get(copy)
            to.value(first + start + i, copy, 0, copy.length)
          }
        } else to.none(first + start + i)
        i += 1
      }
      next = start + count
      page = pages.readPage()
    }
  }

  /** The definition levels (one per call) and the values of `page`, positioned at its first row. */
  private def decoders(column: ColumnDescriptor, page: DataPage, dictionary: Option[Dictionary]): (() => Int, ValuesReader) =
    page.accept(new DataPage.Visitor[(() => Int, ValuesReader)] {
      // Levels, then values, back to back in the page's bytes (ColumnReaderBase.readPageV1).
      def visit(p: DataPageV1): (() => Int, ValuesReader) = {
        val in = p.getBytes.toInputStream
        p.getRlEncoding.getValuesReader(column, ValuesType.REPETITION_LEVEL).initFromPage(p.getValueCount, in)
        val levels = p.getDlEncoding.getValuesReader(column, ValuesType.DEFINITION_LEVEL)
        levels.initFromPage(p.getValueCount, in)
        val values = valuesReader(column, p.getValueEncoding, dictionary)
        values.initFromPage(p.getValueCount, in)
        (() => levels.readInteger(), values)
      }
      // Levels apart from the values, run-length encoded without a length (ColumnReaderBase.readPageV2).
      def visit(p: DataPageV2): (() => Int, ValuesReader) = {
        val maxDefinition = column.getMaxDefinitionLevel
        val levels = if (maxDefinition == 0) () => 0 else {
          val decoder = new RunLengthBitPackingHybridDecoder(BytesUtils.getWidthFromMaxInt(maxDefinition),
            p.getDefinitionLevels.toInputStream)
          () => decoder.readInt()
        }
        val values = valuesReader(column, p.getDataEncoding, dictionary)
        values.initFromPage(p.getValueCount, p.getData.toInputStream)
        (levels, values)
      }
    })

  private def valuesReader(column: ColumnDescriptor, encoding: Encoding, dictionary: Option[Dictionary]): ValuesReader =
    if (!encoding.usesDictionary) encoding.getValuesReader(column, ValuesType.VALUES)
    else encoding.getDictionaryBasedValuesReader(column, ValuesType.VALUES,
      dictionary.getOrElse(throw new ParquetDecodingException(s"a page of ${column.getPath.mkString(".")} uses a dictionary the chunk lacks")))
}
