"""Declared monotone Python UDFs: pruning through a Python function that buckets a timestamp."""
from __future__ import annotations

import sys
from datetime import datetime
from typing import Iterator

import pytest
from pyspark import cloudpickle
from pyspark.errors import PythonException
from pyspark.sql import functions as F

import sparkpersist

PARTS = 6
START_S = 1_767_225_600  # 2026-01-01T00:00:00Z
HOUR = 3600
MONOTONE = "spark.sparkpersist.udf.monotone"

# The Python workers cannot import this test module: ship its functions by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def hour_bucket(ts: datetime) -> int:
    """Hours since START_S: part p holds bucket p only."""
    return (int(ts.timestamp()) - START_S) // HOUR


def late_bucket(ts: datetime) -> int:
    """hour_bucket, raising before hour 2 (monotone: it raises only below a bound)."""
    if int(ts.timestamp()) < START_S + 2 * HOUR:
        raise ValueError("before cutover")
    return hour_bucket(ts)


def minute_15(ts: datetime) -> int:
    """1 at minute 15 of an hour, else 0: not monotone."""
    return 1 if int(ts.timestamp()) // 60 % 60 == 15 else 0


@pytest.fixture(scope="module")
def events(spark) -> Iterator[str]:
    """Six parts; part p holds 30 events a minute apart from hour p on, n = 100 p + minute."""
    name = "monotone_udf_events"
    for p in range(PARTS):
        rows = spark.range(30, numPartitions=1).select(
            F.timestamp_seconds(F.lit(START_S + p * HOUR) + F.col("id") * 60).alias("event_ts"),
            (F.col("id") + p * 100).alias("n"), F.lit(p + 1).cast("bigint").alias("ingest_ms"))
        sparkpersist.write(rows, name, time_col="ingest_ms")
    declared = spark.conf.get(MONOTONE, None)
    yield name
    if declared is None:
        spark.conf.unset(MONOTONE)
    else:
        spark.conf.set(MONOTONE, declared)


@pytest.fixture(scope="module")
def bucket(spark, events):
    return sparkpersist.register_monotone(spark, "bucket", hour_bucket, "up", "bigint")


def _pruned(spark, parts: int) -> int:
    """Parts a Python declaration rules out: none in soft mode, whose row checks cannot run Python."""
    return parts if spark.conf.get("spark.sparkpersist.pushdown.mode", "on") == "on" else 0


def _read(spark, query) -> tuple[list[int], int]:
    """The `n` of the rows `query` (SQL or DataFrame) returns, sorted, and the parts pruning rules out."""
    df = spark.sql(query) if isinstance(query, str) else query
    rows = sorted(r.n for r in df.collect())
    [scan] = sparkpersist.last_scans(spark)
    assert scan["soft_violations"] == 0 and scan["parts_total"] == PARTS
    return rows, scan["parts_pruned"]


def test_equality_on_a_python_bucket_reads_one_part(spark, events, bucket) -> None:
    rows, pruned = _read(spark, f"SELECT n FROM persist.{events} WHERE bucket(event_ts) = 3")
    assert (rows, pruned) == ([300 + i for i in range(30)], _pruned(spark, PARTS - 1))


def test_between_on_a_python_bucket_reads_the_parts_in_range(spark, events, bucket) -> None:
    rows, pruned = _read(spark, f"SELECT n FROM persist.{events} WHERE bucket(event_ts) BETWEEN 1 AND 2")
    assert (rows, pruned) == ([p * 100 + i for p in (1, 2) for i in range(30)], _pruned(spark, PARTS - 2))


def test_the_returned_udf_prunes_in_the_dataframe_api(spark, events, bucket) -> None:
    df = spark.table(f"persist.{events}").where(bucket("event_ts") >= 4).select("n")
    assert _read(spark, df) == ([p * 100 + i for p in (4, 5) for i in range(30)], _pruned(spark, PARTS - 2))


def test_a_udf_object_registers_with_its_own_return_type(spark, events) -> None:
    registered = sparkpersist.register_monotone(spark, "bucket_udf", F.udf(hour_bucket, "bigint"), "up")
    df = spark.table(f"persist.{events}").where(registered("event_ts") == 0).select("n")
    assert _read(spark, df) == (list(range(30)), _pruned(spark, PARTS - 1))


def test_parts_where_the_udf_raises_are_kept_and_the_query_raises(spark, events, session_conf) -> None:
    sparkpersist.register_monotone(spark, "late_bucket", late_bucket, "up", "bigint")
    query = f"SELECT n FROM persist.{events} WHERE late_bucket(event_ts) = 4"
    plan = spark.sql(f"EXPLAIN {query}").first()[0]
    # Parts 0 and 1 raise at their endpoints: kept with part 4; parts 2, 3 and 5 are ruled out.
    kept = 3 if spark.conf.get("spark.sparkpersist.pushdown.mode", "on") == "on" else PARTS
    assert f"parts: {kept}/{PARTS}" in plan
    with pytest.raises(PythonException, match="ValueError: before cutover"):
        spark.sql(query).collect()
    with session_conf("spark.sparkpersist.pushdown.mode", "off"), \
            pytest.raises(PythonException, match="ValueError: before cutover"):
        spark.sql(query).collect()


def test_soft_mode_checks_rows_without_python_declarations(spark, events, session_conf) -> None:
    # minute_15 is not monotone: with pushdown on, its endpoints (0 and 0) would skip every part.
    # Soft mode checks skipped parts' rows without the Python conjunct, so it decides without it
    # too: no part is judged skippable, none is reported, no row is lost.
    sparkpersist.register_monotone(spark, "minute_15", minute_15, "up", "int")
    with session_conf("spark.sparkpersist.pushdown.mode", "soft"), \
            session_conf("spark.sparkpersist.pushdown.soft.failOnViolation", "true"):
        rows, pruned = _read(spark, f"SELECT n FROM persist.{events} WHERE minute_15(event_ts) = 1 AND n >= 0")
    assert (rows, pruned) == ([p * 100 + 15 for p in range(PARTS)], 0)


def test_undeclared_python_udfs_keep_every_part(spark, events) -> None:
    spark.udf.register("plain_bucket", hour_bucket, "bigint")
    rows, pruned = _read(spark, f"SELECT n FROM persist.{events} WHERE plain_bucket(event_ts) = 3")
    assert (rows, pruned) == ([300 + i for i in range(30)], 0)


def test_beyond_the_probe_points_every_part_keeps(spark, events, bucket, session_conf) -> None:
    with session_conf("spark.sparkpersist.udf.python.probePoints", str(2 * PARTS - 1)):
        rows, pruned = _read(spark, f"SELECT n FROM persist.{events} WHERE bucket(event_ts) = 3")
    assert (rows, pruned) == ([300 + i for i in range(30)], 0)
    with session_conf("spark.sparkpersist.udf.python.probePoints", str(2 * PARTS)):
        assert _read(spark, f"SELECT n FROM persist.{events} WHERE bucket(event_ts) = 3")[1] == _pruned(spark, PARTS - 1)


def test_pandas_udfs_and_missing_return_types_are_refused(spark) -> None:
    with pytest.raises(sparkpersist.InvalidInputError, match="needs return_type"):
        sparkpersist.register_monotone(spark, "nope", hour_bucket, "up")
    pandas_udf = F.pandas_udf(lambda s: s, "bigint")
    with pytest.raises(sparkpersist.InvalidInputError, match="not pandas or arrow UDFs"):
        sparkpersist.register_monotone(spark, "nope", pandas_udf, "up")
