package sparkpersist.consolidate

import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import sparkpersist.schema.{ColumnDef, ShardSchema}
import sparkpersist.shard.PartMeta
import sparkpersist.stats.{ColumnStats, PartStats}

/** Runs chained end to end by the statistics of the merge key's first column. */
class RunChainsSuite extends AnyFunSuite {

  private val ids = ShardSchema(IndexedSeq(ColumnDef(1, "id", LongType, nullable = true),
    ColumnDef(2, "x", LongType, nullable = true)), orderBy = Seq("id", "x"))

  private def part(key: String, lo: Long, hi: Long, nulls: Long = 0): PartMeta =
    PartMeta(key, 10, 1000, 1, 1, hasRetractions = false, Some(PartStats(10, 1000, Map(1 -> ColumnStats(nulls, Some(lo), Some(hi))))))

  private def keys(chains: Seq[Seq[PartMeta]]): Seq[Seq[String]] = chains.map(_.map(_.key))

  test("disjoint runs, in any order, become one chain in key order") {
    val runs = IndexedSeq(IndexedSeq(part("c1", 20, 24), part("c2", 25, 29)), IndexedSeq(part("a", 0, 9)),
      IndexedSeq(part("b", 10, 19)))
    assert(keys(RunChains(runs, ids)) === Seq(Seq("a", "b", "c1", "c2")))
  }

  test("overlapping runs take as many chains as the deepest overlap; equal bounds never chain") {
    val runs = IndexedSeq(IndexedSeq(part("a", 0, 10)), IndexedSeq(part("b", 5, 15)), IndexedSeq(part("c", 11, 20)),
      IndexedSeq(part("d", 16, 30)), IndexedSeq(part("e", 30, 40)))
    // e starts at d's upper bound (30), where keys (30, x) of both may interleave, but above c's.
    assert(keys(RunChains(runs, ids)) === Seq(Seq("a", "c", "e"), Seq("b", "d")))
    val touching = IndexedSeq(IndexedSeq(part("a", 0, 10)), IndexedSeq(part("b", 10, 20)))
    assert(keys(RunChains(touching, ids)) === Seq(Seq("a"), Seq("b")))
  }

  test("runs that may hold nulls in the column or lack bounds stay alone; no order key: one chain") {
    val unknown = PartMeta("unknown", 10, 1000, 1, 1, hasRetractions = false, None)
    val runs = IndexedSeq(IndexedSeq(part("a", 0, 9)), IndexedSeq(part("nulls", 10, 19, nulls = 1)),
      IndexedSeq(unknown), IndexedSeq(part("b", 20, 29)))
    assert(keys(RunChains(runs, ids)) === Seq(Seq("a", "b"), Seq("nulls"), Seq("unknown")))
    assert(keys(RunChains(runs, ids.copy(orderBy = Nil))) === Seq(Seq("a", "nulls", "unknown", "b")))
  }

  test("compaction's merge key (no order key, then time): runs chain by their parts' times") {
    def timed(key: String, lo: Long, hi: Long) = PartMeta(key, 10, 1000, lo, hi, hasRetractions = false, None)
    val noKey = ids.copy(orderBy = Nil)
    // Appends (one time each) chain in time order; a clustered window's runs each span its times, so they never chain.
    val appends = IndexedSeq(IndexedSeq(timed("t2", 2, 2)), IndexedSeq(timed("t1", 1, 1)), IndexedSeq(timed("t3", 3, 3)))
    assert(keys(RunChains(appends, noKey, timeKeyed = true)) === Seq(Seq("t1", "t2", "t3")))
    val clustered = IndexedSeq(IndexedSeq(timed("b0", 1, 4)), IndexedSeq(timed("b1a", 1, 2), timed("b1b", 2, 4)),
      IndexedSeq(timed("next", 5, 8)))
    assert(keys(RunChains(clustered, noKey, timeKeyed = true)) === Seq(Seq("b0", "next"), Seq("b1a", "b1b")))
    assert(keys(RunChains(clustered, noKey)) === Seq(Seq("b0", "b1a", "b1b", "next"))) // consolidation: one key
  }

  test("a first key column without a usable order (a collated string) leaves the runs as written") {
    val collated = ShardSchema(IndexedSeq(ColumnDef(1, "s", StringType("UTF8_LCASE"), nullable = true)), orderBy = Seq("s"))
    val runs = IndexedSeq(IndexedSeq(part("a", 0, 9)), IndexedSeq(part("b", 20, 29)))
    assert(keys(RunChains(runs, collated)) === Seq(Seq("a"), Seq("b")))
  }
}
