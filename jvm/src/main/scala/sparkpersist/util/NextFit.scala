package sparkpersist.util

import scala.collection.mutable.ArrayBuffer

/**
 * Next-fit packing, in the given order: an item joins the open group unless its size would take
 * the group past `limit`, in which case the group closes and a new one opens. An item larger than
 * `limit` gets a group of its own. Each item in a group also costs `overhead` towards the limit
 * of the items after it (Spark's `spark.sql.files.openCostInBytes` for files packed into a task).
 */
object NextFit {

  def groups[A](items: Iterable[A], limit: Long, overhead: Long = 0L)(size: A => Long): Seq[IndexedSeq[A]] = {
    val out = ArrayBuffer.empty[IndexedSeq[A]]
    val group = ArrayBuffer.empty[A]
    var used = 0L
    items.foreach { item =>
      if (group.nonEmpty && used + size(item) > limit) {
        out += group.toIndexedSeq
        group.clear()
        used = 0L
      }
      group += item
      used += size(item) + overhead
    }
    if (group.nonEmpty) out += group.toIndexedSeq
    out.toSeq
  }
}
