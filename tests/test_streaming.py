"""Shards as Structured Streaming sources and sinks from PySpark: exactly once across restarts,
``mz_now()`` windows pruning each micro-batch, and the errors a stream of the snapshot view gives."""
from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession

import sparkpersist

DAY = 86_400_000


def _append(spark: SparkSession, shard: str, t: int, *rows: tuple[int, str]) -> None:
    df = spark.createDataFrame([(k, v, t) for k, v in rows], "k bigint, v string, t bigint").coalesce(1)
    sparkpersist.write(df, shard, time_col="t", order_by=["k"])


def _rows(spark: SparkSession, table: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.table(table).collect())


def _copy_available(spark: SparkSession, source: str, sink: str, checkpoint: Path) -> None:
    """Runs ``persist.<source>`` into ``persist.<sink>`` up to the source's upper, then stops."""
    query = (spark.readStream.table(f"persist.{source}")
             .writeStream.option("checkpointLocation", str(checkpoint))
             .trigger(availableNow=True)
             .toTable(f"persist.{sink}"))
    query.awaitTermination(120)
    assert not query.isActive, "the AvailableNow query did not finish in 2 minutes"
    assert query.exception() is None


def test_stream_copies_a_shard_exactly_once_across_restarts(spark, shard_name, tmp_path) -> None:
    source, sink = f"{shard_name}_src", f"{shard_name}_dst"
    spark.sql(f"CREATE TABLE persist.{sink} (k BIGINT, v STRING) TBLPROPERTIES ('order_by' = 'k')")
    checkpoint = tmp_path / "checkpoint"
    _append(spark, source, 10, (1, "a"), (2, "b"))
    _append(spark, source, 20, (3, "c"))

    _copy_available(spark, source, sink, checkpoint)
    assert _rows(spark, f"persist.{sink}") == [(1, "a"), (2, "b"), (3, "c")]
    batches_after_first = len(spark.table(f"persist.{sink}.batches").collect())

    # The restarted query continues from its checkpoint: only the new append arrives, once.
    _append(spark, source, 30, (4, "d"))
    _copy_available(spark, source, sink, checkpoint)
    assert _rows(spark, f"persist.{sink}") == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]
    assert len(spark.table(f"persist.{sink}.batches").collect()) == batches_after_first + 1

    # Nothing new: a restart commits nothing.
    _copy_available(spark, source, sink, checkpoint)
    assert _rows(spark, f"persist.{sink}") == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]
    assert len(spark.table(f"persist.{sink}.batches").collect()) == batches_after_first + 1


def test_mz_now_window_prunes_the_streams_first_micro_batch(spark, shard_name) -> None:
    # One part per day over ten days; event_ts is the day's start.
    for day in range(10):
        df = spark.sql(f"SELECT {day} AS k, timestamp_millis({day * DAY}) AS event_ts, CAST({day * DAY + 1} AS BIGINT) AS t")
        sparkpersist.write(df.coalesce(1), shard_name, time_col="t")
    scans: list[dict] = []
    seen: list[int] = []

    def record(batch: DataFrame, epoch_id: int) -> None:
        seen.extend(r.k for r in batch.collect())
        scans.extend(sparkpersist.last_scans(batch.sparkSession))

    query = (spark.readStream.table(f"persist.{shard_name}")
             .where("mz_now() <= event_ts + INTERVAL 3 DAYS")
             .writeStream.foreachBatch(record)
             .trigger(availableNow=True).start())
    query.awaitTermination(120)
    assert not query.isActive and query.exception() is None
    # The as-of is the shard's upper - 1 = 9 days + 1 ms: only days 7 to 9 end within 3 days of it.
    assert sorted(seen) == [7, 8, 9]
    assert len(scans) == 1
    scan = scans[0]
    assert scan["shard"] == shard_name and scan["parts_total"] == 10
    if spark.conf.get("spark.sparkpersist.pushdown.mode", "on") == "on":
        assert scan["parts_read"] == 3
    else:  # soft mode reads every part and verifies the skipped ones
        assert scan["soft_violations"] == 0


def test_a_retraction_fails_a_stream_of_the_snapshot_view_and_names_the_updates_view(
        spark, shard_name, tmp_path) -> None:
    updates = spark.createDataFrame([("a", 10, 1), ("a", 20, -1)], "name string, t bigint, d bigint")
    sparkpersist.write(updates.where("t = 10").coalesce(1), shard_name, time_col="t", diff_col="d")
    seen: list[tuple] = []
    query = (spark.readStream.table(f"persist.{shard_name}")
             .writeStream.foreachBatch(lambda batch, _: seen.extend(tuple(r) for r in batch.collect()))
             .option("checkpointLocation", str(tmp_path / "checkpoint"))
             .start())
    try:
        query.processAllAvailable()
        assert seen == [("a",)]
        sparkpersist.write(updates.where("t = 20").coalesce(1), shard_name, time_col="t", diff_col="d")
        with pytest.raises(Exception, match=rf"Stream its updates instead.*\.{shard_name}\.updates"):
            query.processAllAvailable()
    finally:
        query.stop()

    # The updates view streams both: the insert and its retraction, as (data, time, diff).
    both: list[tuple] = []
    updates_query = (spark.readStream.table(f"persist.{shard_name}.updates")
                     .writeStream.foreachBatch(lambda batch, _: both.extend(tuple(r) for r in batch.collect()))
                     .trigger(availableNow=True).start())
    updates_query.awaitTermination(120)
    assert updates_query.exception() is None
    assert sorted(both) == [("a", 10, 1), ("a", 20, -1)]
