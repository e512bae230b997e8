package sparkpersist.consolidate

import org.apache.spark.sql.catalyst.InternalRow

/** Rows standing for several copies of themselves. */
object Multiplicity {
  /** `row` repeated `count` times; nothing for `count <= 0`. */
  def repeat(row: InternalRow, count: Long): Iterator[InternalRow] =
    if (count == 1) Iterator.single(row)
    else Iterator.iterate(count)(_ - 1).takeWhile(_ > 0).map(_ => row)
}
