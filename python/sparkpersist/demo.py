"""The demo behind ``make demo``: a shard of months of events, written in daily batches, queried.

Each day's events are one batch whose update ``time`` is the day's ingest time; the events'
own ``event_ts`` lags it (late arrivals up to a few days), some payload fields are null.
Re-running reuses the shard when it is already complete.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

SHARD = "demo_events"
DAYS = 120
EVENTS_PER_DAY = 20_000
ROWS_PER_PART = 5_000
START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
DAY_MS = 86_400_000


def day_events(spark: SparkSession, day: int) -> DataFrame:
    """The events ingested on ``day``: event times lag ingest by up to 3 days (a few late ones)."""
    ingest_ms = START_MS + (day + 1) * DAY_MS - 1
    r = F.rand(seed=day)
    lag_ms = (F.when(r < 0.97, F.rand(seed=day + 1) * DAY_MS)
              .otherwise(F.rand(seed=day + 2) * 3 * DAY_MS)).cast("bigint")
    return (spark.range(EVENTS_PER_DAY)
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
        done = spark.sql(f"SELECT count(DISTINCT batch_id) FROM persist.`{SHARD}$parts`").first()[0]
    for day in tqdm(range(done, DAYS), desc="writing daily batches", unit="day", initial=done, total=DAYS):
        sparkpersist.write(day_events(spark, day).repartition(4), SHARD, time_col="ingest_ms",
                           max_rows_per_part=ROWS_PER_PART, order_by=["event_ts"])
    return spark.sql(f"SELECT count(DISTINCT key) FROM persist.`{SHARD}$parts`").first()[0]


@dataclass
class QueryResult:
    name: str
    rows: int
    seconds: float


def run_queries(spark: SparkSession) -> List[QueryResult]:
    last_day = f"timestamp_millis({START_MS + DAYS * DAY_MS})"
    queries: List[tuple[str, Callable[[], int]]] = [
        ("all events", lambda: spark.table(f"persist.{SHARD}").count()),
        ("last 7 days", lambda: spark.sql(
            f"SELECT * FROM persist.{SHARD} WHERE event_ts >= {last_day} - INTERVAL 7 DAYS").count()),
        ("one day by date_trunc", lambda: spark.sql(
            f"SELECT * FROM persist.{SHARD} WHERE date_trunc('DAY', event_ts) = "
            f"date_trunc('DAY', {last_day} - INTERVAL 30 DAYS)").count()),
        ("refunds in JSON, last 3 days", lambda: spark.sql(
            f"SELECT * FROM persist.{SHARD} WHERE get_json_object(payload, '$.kind') = 'refund' "
            f"AND event_ts >= {last_day} - INTERVAL 3 DAYS").count()),
    ]
    results = []
    for name, run in queries:
        t0 = time.perf_counter()
        rows = run()
        results.append(QueryResult(name, rows, time.perf_counter() - t0))
    return results


def run_demo(data_dir: str) -> int:
    """Entry point of ``python -m sparkpersist demo``."""
    import sparkpersist

    root = Path(data_dir).resolve()
    spark = sparkpersist.session(str(root), master="local[2]", app_name="sparkpersist-demo",
                                 **{"spark.sql.session.timeZone": "UTC", "spark.ui.showConsoleProgress": "true"})
    spark.sparkContext.setLogLevel("ERROR")
    parts = ensure_shard(spark)
    print(f"\nshard {SHARD!r} under {root}: {parts} parts, {DAYS} daily batches\n")
    results = run_queries(spark)
    width = max(len(r.name) for r in results)
    print(f"{'query':<{width}}  {'rows':>10}  {'seconds':>8}")
    for r in results:
        print(f"{r.name:<{width}}  {r.rows:>10}  {r.seconds:>8.2f}")
    spark.stop()
    return 0
