"""The demo behind ``make demo``: a shard of months of events, written in daily batches, queried.

Each day's events are one batch whose update ``time`` is the day's ingest time; the events'
own ``event_ts`` lags it (late arrivals up to a few days), some payload fields are null.
Re-running reuses the shard when it is already complete.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import List

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

SHARD = "demo_events"
DAYS = 90
EVENTS_PER_DAY = 10_000
TASKS_PER_DAY = 2
ROWS_PER_PART = 2_500
START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
DAY_MS = 86_400_000


def day_events(spark: SparkSession, day: int) -> DataFrame:
    """The events ingested on ``day``: event times lag ingest by up to 3 days (a few late ones)."""
    ingest_ms = START_MS + (day + 1) * DAY_MS - 1
    r = F.rand(seed=day)
    lag_ms = (F.when(r < 0.97, F.rand(seed=day + 1) * DAY_MS)
              .otherwise(F.rand(seed=day + 2) * 3 * DAY_MS)).cast("bigint")
    return (spark.range(EVENTS_PER_DAY, numPartitions=TASKS_PER_DAY)
            .withColumn("ingest_ms", F.lit(ingest_ms))
            .withColumn("event_ts", F.timestamp_millis(F.lit(ingest_ms) - lag_ms))
            .withColumn("user_id", (F.abs(F.hash("id", F.lit(day))) % 50_000).cast("int"))
            .withColumn("country", F.element_at(F.array(*[F.lit(c) for c in ("US", "DE", "FR", "JP", "BR", "IN")]),
                                                (F.abs(F.hash("id")) % 6 + 1).cast("int")))
            .withColumn("amount", F.round(F.rand(seed=day + 3) * 200, 2))
            .withColumn("coupon", F.when(F.rand(seed=day + 4) < 0.8, F.lit(None).cast("string"))
                        .otherwise(F.concat(F.lit("C"), (F.col("id") % 97).cast("string"))))
            .withColumn("payload", F.to_json(F.struct(
                (F.lit(ingest_ms) - lag_ms).alias("ts"),
                F.when(F.col("id") % 10 == 0, F.lit("refund")).otherwise(F.lit("purchase")).alias("kind"))))
            .drop("id"))


def ensure_shard(spark: SparkSession) -> int:
    """Writes the days not yet in the shard; returns the number of parts."""
    import sparkpersist
    from tqdm import tqdm

    # One batch per day: the batches already committed are the days already written.
    done = 0
    if SHARD in sparkpersist.shards(spark):
        done = sparkpersist.parts(spark, SHARD).select("batch_id").distinct().count()
    for day in tqdm(range(done, DAYS), desc="writing daily batches", unit="day", initial=done, total=DAYS):
        sparkpersist.write(day_events(spark, day), SHARD, time_col="ingest_ms",
                           max_rows_per_part=ROWS_PER_PART, order_by=["event_ts"])
    return sparkpersist.parts(spark, SHARD).count()


QUERIES = {
    "last 7 days (mz_now)": "SELECT * FROM persist.demo_events WHERE mz_now() <= event_ts + INTERVAL 7 DAYS",
    "one day (date_trunc)": "SELECT * FROM persist.demo_events "
                            "WHERE date_trunc('DAY', event_ts) = TIMESTAMP '2026-02-15 00:00:00'",
    "US, last 30 days": "SELECT * FROM persist.demo_events "
                        "WHERE country = 'US' AND mz_now() <= event_ts + INTERVAL 30 DAYS",
    "refunds in JSON, last 3 days": "SELECT * FROM persist.demo_events "
                                    "WHERE get_json_object(payload, '$.kind') = 'refund' "
                                    "AND event_ts >= mz_now() - INTERVAL 3 DAYS",
    "everything": "SELECT * FROM persist.demo_events",
}


@dataclass
class QueryResult:
    """One demo query run with pushdown on and off."""

    name: str
    rows: int
    parts_read: int
    parts_total: int
    bytes_read: int
    bytes_total: int
    seconds_on: float
    seconds_off: float


def _timed_count(spark: SparkSession, sql: str, mode: str) -> tuple[int, float, dict]:
    import sparkpersist

    spark.conf.set("spark.sparkpersist.pushdown.mode", mode)
    t0 = time.perf_counter()
    rows = spark.sql(sql).count()
    elapsed = time.perf_counter() - t0
    [scan] = sparkpersist.last_scans(spark)
    return rows, elapsed, scan


def run_queries(spark: SparkSession) -> List[QueryResult]:
    """Runs every demo query with pushdown off, then on; both must return the same rows."""
    results = []
    try:
        for name, sql in QUERIES.items():
            rows_off, seconds_off, _ = _timed_count(spark, sql, "off")
            rows_on, seconds_on, scan = _timed_count(spark, sql, "on")
            if rows_on != rows_off:
                raise AssertionError(f"{name}: {rows_on} rows with pushdown on, {rows_off} with it off")
            results.append(QueryResult(name, rows_on, scan["parts_read"], scan["parts_total"],
                                       scan["bytes_read"], scan["bytes_total"], seconds_on, seconds_off))
    finally:
        spark.conf.unset("spark.sparkpersist.pushdown.mode")
    return results


def print_table(results: List[QueryResult]) -> None:
    width = max(len(r.name) for r in results)
    print(f"{'query':<{width}}  {'rows':>9}  {'parts read':>12}  {'MB read':>13}  "
          f"{'s (on)':>7}  {'s (off)':>7}  {'speed-up':>8}")
    for r in results:
        print(f"{r.name:<{width}}  {r.rows:>9}  {r.parts_read:>5} / {r.parts_total:<4}  "
              f"{r.bytes_read / 1e6:>5.1f} / {r.bytes_total / 1e6:<5.1f}  "
              f"{r.seconds_on:>7.2f}  {r.seconds_off:>7.2f}  {r.seconds_off / r.seconds_on:>7.1f}x")


def run_demo(data_dir: str) -> int:
    """Entry point of ``python -m sparkpersist demo``."""
    import sparkpersist

    root = Path(data_dir).resolve()
    spark = sparkpersist.session(str(root), master="local[2]", app_name="sparkpersist-demo",
                                 **{"spark.sql.session.timeZone": "UTC", "spark.ui.showConsoleProgress": "false"})
    spark.sparkContext.setLogLevel("ERROR")
    parts = ensure_shard(spark)
    print(f"\nshard {SHARD!r} under {root}: {parts} parts, {DAYS} daily batches\n")
    print_table(run_queries(spark))
    spark.stop()
    return 0
