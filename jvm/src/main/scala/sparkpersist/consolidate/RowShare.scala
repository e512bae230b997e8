package sparkpersist.consolidate

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

import sparkpersist.read.PartFile

/**
 * The updates one consolidation task keeps of the parts it reads: its share of the shard's data
 * rows. Shares of one scan split the rows: every data row belongs to exactly one share, chosen
 * from its data alone, so all updates of one row (its inserts and retractions, wherever they
 * sit) meet in one task and consolidate exactly. Built on the driver, used on executors.
 */
sealed trait RowShare extends Serializable {
  /** Whether an update of `file` (data columns, then time and diff) belongs to this share. */
  def test(file: PartFile): InternalRow => Boolean

  /** The updates of `file` that belong to this share. */
  def of(file: PartFile, updates: Iterator[InternalRow]): Iterator[InternalRow] = updates.filter(test(file))

  /** Filters for Parquet that keep every row of this share (they may keep others too). */
  def parquetFilters: Seq[Filter] = Nil

  def describe: String
}

object RowShare {
  /** Every row: a consolidation in one task. */
  case object All extends RowShare {
    override def test(file: PartFile): InternalRow => Boolean = _ => true
    override def of(file: PartFile, updates: Iterator[InternalRow]): Iterator[InternalRow] = updates
    override def describe: String = "all rows"
  }

  /**
   * The rows whose value of `ranges.column`, at `ordinal` of the update, lies in range `index`.
   * The task reads the parts whose statistics say they may hold such rows; `spans` (by part key)
   * are those statistics, and a row outside its part's span fails the read: the part would have
   * been left out of the task its row belongs to, and the row lost.
   */
  final case class KeyRange(ranges: KeyRanges, index: Int, ordinal: Int, spans: Map[String, KeySpan])
    extends RowShare {
    override def test(file: PartFile): InternalRow => Boolean =
      KeyTest(ranges, index, ordinal, spans.getOrElse(file.key, KeySpan.Anything), file)

    override def parquetFilters: Seq[Filter] = ranges.parquetFilters(index)

    override def describe: String = s"range $index of ${ranges.describe}"
  }

  /**
   * The rows whose data columns (the first `dataSchema.length` of the update), as exact bytes,
   * hash to `bucket` of `buckets`: the share of a shard whose statistics separate nothing. The
   * bytes are those [[Consolidation]] compares rows by, so equal rows hash alike.
   */
  final case class Hash(bucket: Int, buckets: Int, dataSchema: StructType) extends RowShare {
    @transient private lazy val data = UnsafeProjection.create(
      dataSchema.fields.toSeq.zipWithIndex.map { case (f, i) => BoundReference(i, f.dataType, f.nullable) })

    override def test(file: PartFile): InternalRow => Boolean =
      u => Math.floorMod(data(u).hashCode(), buckets) == bucket

    override def describe: String = s"hash bucket $bucket of $buckets"
  }
}

/** A part holds a value its statistics exclude: consolidating it in parallel could lose rows. */
final class PartStatsMismatch(path: String, column: String, value: Any, span: KeySpan)
  extends IllegalStateException(
    s"Part $path holds a row whose '$column' is $value, outside the part's statistics ($span), so " +
      s"its statistics are wrong and the part cannot be consolidated by key ranges. Set " +
      s"${sparkpersist.PersistConf.ConsolidationTasks.key}=1 to read the shard in one merge, and report this as a bug.")
