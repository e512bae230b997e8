"""Part pruning seen from PySpark: mz_now() windows, and what last_scans() reports."""
from __future__ import annotations

import pytest
from pyspark.sql import functions as F

import sparkpersist

START = 1_767_225_600_000  # 2026-01-01T00:00:00Z
DAY = 86_400_000
DAYS = 12


@pytest.fixture(scope="module")
def events(spark) -> str:
    """A shard of twelve daily batches (one part each), update time = end of the day."""
    name = "pruning_events"
    for d in range(DAYS):
        day = (spark.range(50, numPartitions=1)
               .select(F.timestamp_millis(F.lit(START + d * DAY) + F.col("id") * 1_000_000).alias("event_ts"),
                       F.when(F.col("id") % 3 == 0, "US").otherwise("FR").alias("country"),
                       (F.col("id") + d * 1000).alias("n"),
                       F.lit(START + (d + 1) * DAY - 1).alias("ingest_ms")))
        sparkpersist.write(day, name, time_col="ingest_ms")
    return name


def _mode(spark) -> str:
    return spark.conf.get("spark.sparkpersist.pushdown.mode", "on")


def test_mz_now_window_reads_only_recent_parts(spark, events) -> None:
    rows = spark.sql(f"SELECT n FROM persist.{events} "
                     "WHERE mz_now() <= event_ts + INTERVAL 3 DAYS AND country = 'US'").collect()
    # as-of = end of day 11: events from the end of day 8 on -> days 9, 10, 11, a third of them US.
    assert sorted(r.n for r in rows) == [d * 1000 + i for d in (9, 10, 11) for i in range(0, 50, 3)]
    [scan] = sparkpersist.last_scans(spark)
    assert scan["shard"] == events
    assert scan["as_of"] == START + DAYS * DAY - 1
    assert scan["parts_total"] == DAYS and scan["parts_pruned"] == DAYS - 3
    assert scan["soft_violations"] == 0
    assert scan["parts_read"] == (3 if _mode(spark) == "on" else DAYS)
    assert scan["bytes_read"] <= scan["bytes_total"]
    assert scan["mode"] == _mode(spark)


def test_pushdown_off_reads_everything_with_the_same_rows(spark, events, session_conf) -> None:
    query = f"SELECT count(*) AS c FROM persist.{events} WHERE date_trunc('DAY', event_ts) = TIMESTAMP '2026-01-05'"
    with_pushdown = spark.sql(query).first().c
    with session_conf("spark.sparkpersist.pushdown.mode", "off"):
        assert spark.sql(query).first().c == with_pushdown == 50
        [scan] = sparkpersist.last_scans(spark)
        assert (scan["mode"], scan["parts_read"], scan["parts_pruned"]) == ("off", DAYS, 0)


def test_explain_shows_parts_kept_of_total(spark, events) -> None:
    plan = spark.sql(f"EXPLAIN SELECT * FROM persist.{events} WHERE n >= 11000").first()[0]
    kept = 1 if _mode(spark) == "on" else DAYS
    assert f"parts: {kept}/{DAYS}" in plan


def test_udf_filters_read_every_part(spark, events) -> None:
    spark.udf.register("double_it", lambda x: x * 2, "bigint")
    assert spark.sql(f"SELECT count(*) FROM persist.{events} WHERE double_it(n) = 22004").first()[0] == 1
    [scan] = sparkpersist.last_scans(spark)
    assert (scan["parts_read"], scan["parts_pruned"]) == (DAYS, 0)


def test_last_scans_names_the_parts_read(spark, events) -> None:
    spark.sql(f"SELECT n FROM persist.{events} WHERE mz_now() <= event_ts + INTERVAL 2 DAYS").collect()
    [scan] = sparkpersist.last_scans(spark)
    keys = [r.key for r in sparkpersist.parts(spark, events).orderBy("min_time").collect()]
    # as-of = end of day 11: events from the end of day 9 on -> the parts of days 10 and 11.
    assert scan["part_keys_read"] == (keys[-2:] if _mode(spark) == "on" else keys)
