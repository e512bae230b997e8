package sparkpersist.consolidate

import sparkpersist.interpret.ValueOrdering
import sparkpersist.schema.{ColumnDef, ShardSchema}
import sparkpersist.shard.PartMeta

/** One consolidation task: the runs it merges (each in run order) and the rows it keeps. */
final case class ConsolidationTask(runs: IndexedSeq[IndexedSeq[PartMeta]], share: RowShare) {
  /** Rows of the task's parts that hold retractions: what a [[Cancellation]] would hold in memory. */
  def retractingRows: Long = runs.iterator.flatten.filter(_.hasRetractions).map(_.rowCount).sum
}

/**
 * How a snapshot with retractions is read in parallel (seed 004, "key-range part assignment"):
 * consolidation tasks, each merging the runs of the parts it reads and keeping only the rows of
 * its [[RowShare]], and parts read straight.
 *
 *  - Full consolidation where it is needed: every data row belongs to one share, so all updates
 *    of a row meet in one task, whichever parts and runs hold them. A task reads every part
 *    whose statistics may hold a row of its share (a part without statistics: every task).
 *  - Best effort where it is not: an insert-only part whose key span meets no part with
 *    retractions cannot hold a row that is ever retracted, so each of its updates stands for one
 *    copy of its row and the part is read `straight`, outside any merge.
 *
 * @param straight parts read without consolidation
 */
final case class ConsolidationPlan(tasks: IndexedSeq[ConsolidationTask], straight: IndexedSeq[PartMeta],
    describe: String) {
  /**
   * The same tasks and shares over the parts `read` keeps (a runtime filter narrowed the parts):
   * every share still meets all the updates of its rows that are read, and no task holds more
   * retracting rows than before.
   */
  def restrictedTo(read: PartMeta => Boolean): ConsolidationPlan = ConsolidationPlan(
    tasks.map(t => t.copy(runs = t.runs.map(_.filter(read)).filter(_.nonEmpty))).filter(_.runs.nonEmpty),
    straight.filter(read), describe)
}

object ConsolidationPlan {

  /**
   * The plan for the `written` runs (each in run order) of a shard with `schema`, in at most `n`
   * consolidation tasks (one: a single merge of every run). Runs are first chained end to end where
   * their statistics allow ([[RunChains]]), so a task holds one open part per chain.
   *
   * Shares are key ranges ([[KeyRanges]]) of the column whose part statistics leave the busiest
   * task the fewest bytes to read (the order key's first column among equals). The merge order
   * stays the order key's whatever the column: each task merges ordered subsequences of the
   * runs. When no column separates any part (every task would read every part), shares are hash
   * buckets of the rows' bytes ([[RowShare.Hash]]) instead, every task reading every part: as
   * much reading as key ranges would cost, but rows spread evenly.
   */
  def apply(written: IndexedSeq[IndexedSeq[PartMeta]], schema: ShardSchema, n: Int): ConsolidationPlan = {
    val runs = RunChains(written, schema)
    if (n <= 1 || runs.isEmpty) {
      return ConsolidationPlan(IndexedSeq(ConsolidationTask(runs, RowShare.All)).filter(_.runs.nonEmpty),
        IndexedSeq.empty, "one consolidation task")
    }
    val orderKey = schema.orderBy.headOption.flatMap(schema.column)
    val columns = (orderKey.toSeq ++ schema.columns.filterNot(c => orderKey.exists(_.id == c.id)))
      .filter(c => KeyRanges.supports(c.dataType))
    val byRanges = columns.map(byKeyRanges(runs, schema, _, n))
    byRanges.filter(_.separates).sortBy(_.busiestBytes).headOption.map(_.plan).getOrElse {
      // Keep the parts some column proves free of retracted rows straight; hash the rest.
      val best = byRanges.sortBy(-_.plan.straight.size).headOption
      val straight = best.map(_.plan.straight).getOrElse(IndexedSeq.empty)
      val merged = best.map(_.merged).getOrElse(runs)
      val tasks = (0 until n).map(b => ConsolidationTask(merged, RowShare.Hash(b, n, schema.dataSchema)))
      ConsolidationPlan(tasks.filter(_.runs.nonEmpty), straight,
        s"$n consolidation tasks by hash of the rows (no statistics separate the parts)" + readStraight(straight))
    }
  }

  /** A key-range plan on one column; `separates` when some task reads fewer than all merged parts. */
  private final case class ByColumn(plan: ConsolidationPlan, merged: IndexedSeq[IndexedSeq[PartMeta]],
      busiestBytes: Long, separates: Boolean)

  private def byKeyRanges(runs: IndexedSeq[IndexedSeq[PartMeta]], schema: ShardSchema, column: ColumnDef,
      n: Int): ByColumn = {
    val ordering = ValueOrdering.of(column.dataType).get
    val spans = new java.util.IdentityHashMap[PartMeta, KeySpan]()
    runs.foreach(_.foreach(p => spans.put(p, KeySpan.of(p, column))))
    val retracted = new KeySpanCover(runs.flatten.filter(_.hasRetractions).map(spans.get), ordering)
    val isStraight = (p: PartMeta) => !p.hasRetractions && !retracted.meets(spans.get(p))
    val straight = runs.flatMap(_.filter(isStraight))
    val merged = runs.map(_.filterNot(isStraight)).filter(_.nonEmpty)
    val masses = merged.flatten.map { p =>
      val nullRows = p.stats.flatMap(_.columns.get(column.id)).map(_.nullCount)
        .filter(c => c >= 0 && c <= p.rowCount).getOrElse(0L)
      KeyMass(spans.get(p), nullRows, p.rowCount - nullRows)
    }
    val ranges = KeyRanges.balanced(column, masses, n)
    val ordinal = schema.columns.indexWhere(_.id == column.id)
    val tasks = (0 until ranges.count).map { i =>
      val read = merged.map(_.filter(p => ranges.overlaps(spans.get(p), i))).filter(_.nonEmpty)
      ConsolidationTask(read, RowShare.KeyRange(ranges, i, ordinal, read.flatten.map(p => p.key -> spans.get(p)).toMap))
    }.filter(_.runs.nonEmpty)
    val mergedParts = merged.map(_.size).sum
    val separates = tasks.size > 1 && tasks.exists(_.runs.map(_.size).sum < mergedParts)
    val plan = ConsolidationPlan(tasks, straight,
      s"${tasks.size} consolidation tasks by ${ranges.describe}" + readStraight(straight))
    ByColumn(plan, merged, (0L +: tasks.map(_.runs.flatten.map(_.bytes).sum)).max, separates)
  }

  private def readStraight(straight: Seq[PartMeta]): String =
    if (straight.isEmpty) "" else s", ${straight.size} parts without retracted rows read straight"
}
