package sparkpersist.source

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection}
import org.apache.spark.sql.types.StructType

/**
 * The updates one consolidation task keeps of the parts it reads: its share of the shard's data
 * rows. Shares of one scan split the rows: every data row belongs to exactly one share, chosen
 * from its data alone, so all updates of one row (its inserts and retractions, wherever they
 * sit) meet in one task and consolidate exactly. Built on the driver, used on executors.
 */
sealed trait RowShare extends Serializable {
  /** Whether `update` (data columns, then time and diff) belongs to this share. */
  def keeps(update: InternalRow): Boolean

  def describe: String
}

object RowShare {
  /** Every row: a consolidation in one task. */
  case object All extends RowShare {
    override def keeps(update: InternalRow): Boolean = true
    override def describe: String = "all rows"
  }

  /** The rows whose value of `ranges.column`, at `ordinal` of the update, lies in range `index`. */
  final case class KeyRange(ranges: KeyRanges, index: Int, ordinal: Int) extends RowShare {
    override def keeps(update: InternalRow): Boolean =
      ranges.rangeOf(update.get(ordinal, ranges.column.dataType)) == index

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

    override def keeps(update: InternalRow): Boolean =
      Math.floorMod(data(update).hashCode(), buckets) == bucket

    override def describe: String = s"hash bucket $bucket of $buckets"
  }
}
