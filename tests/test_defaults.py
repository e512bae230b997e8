"""What pruning gives without changing a setting: numbers and times held as text, JSON and VARIANT
paths that hold numbers and, in some rows, numeric strings, lookups of absent values (top-level,
at JSON and VARIANT places, in a UTF8_LCASE column) and ranges in a collation's order. Each
query's rows are compared with plain Spark over the same rows (a temporary view), and the parts
read are exact: the parts holding rows with pushdown on, every part off (``make test`` runs this
file again in soft mode, failing on any violation)."""
from __future__ import annotations

from typing import Iterator

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import sparkpersist

START_S = 1_767_225_600  # 2026-01-01T00:00:00Z
DAYS = 8
ROWS_PER_DAY = 96  # one event every 15 minutes


def _day(spark: SparkSession, d: int) -> DataFrame:
    n = F.col("id") + d * ROWS_PER_DAY
    seconds = F.lit(START_S) + n * 900
    millis = (seconds * 1000).cast("string")
    # One row in 40 holds ts as a numeric string, as exports of mixed sources do.
    ts = F.when(n % 40 == 7, F.concat(F.lit('"'), millis, F.lit('"'))).otherwise(millis)
    kinds = F.element_at(F.array(*[F.lit(k) for k in ("click", "view", "buy")]), (n % 3 + 1).cast("int"))
    code = ((n % 5) * 100 + 7).cast("string")  # 7, 107, ..., 407: sparse integers
    doc = F.concat(F.lit('{"ts": '), ts, F.lit(', "kind": "'), kinds, F.lit('", "code": '), code, F.lit('}'))
    return (spark.range(ROWS_PER_DAY, numPartitions=1).select(
        n.alias("n"),
        F.timestamp_seconds(seconds).alias("event_ts"),
        ((n % 5000) / 10).cast("decimal(8,1)").cast("string").alias("amount_text"),
        F.date_format(F.timestamp_seconds(seconds), "yyyy-MM-dd HH:mm:ss").alias("created_text"),
        F.element_at(F.array(*[F.lit(c) for c in ("US", "DE", "FR", "JP")]), (n % 4 + 1).cast("int")).alias("country"),
        # Day d's cities start with the d-th letter, in mixed case: ordered by UTF8_LCASE, not by bytes.
        F.collate(F.concat(F.lit("ABCDEFGH"[d] if d % 2 else "abcdefgh"[d]), F.lit("ity-"), (n % 6).cast("string")),
                  "UTF8_LCASE").alias("city"),
        doc.alias("js"),
        F.parse_json(doc).alias("payload")))


@pytest.fixture(scope="module")
def events(spark: SparkSession) -> Iterator[str]:
    """Eight daily appends (one part each) at the default settings, and the same rows as a view."""
    name = "defaults_events"
    days = [_day(spark, d) for d in range(DAYS)]
    for day in days:
        sparkpersist.write(day, name, json_columns=["js"])
    oracle = days[0]
    for day in days[1:]:
        oracle = oracle.unionByName(day)
    oracle.createOrReplaceTempView("defaults_oracle")
    yield name
    spark.catalog.dropTempView("defaults_oracle")


def _mode(spark: SparkSession) -> str:
    return spark.conf.get("spark.sparkpersist.pushdown.mode", "on")


def _assert_reads(spark: SparkSession, shard: str, where: str, kept: int) -> None:
    rows = sorted(r.n for r in spark.sql(f"SELECT n FROM persist.{shard} WHERE {where}").collect())
    [scan] = sparkpersist.last_scans(spark)
    expected = sorted(r.n for r in spark.sql(f"SELECT n FROM defaults_oracle WHERE {where}").collect())
    assert rows == expected, where
    assert scan["parts_total"] == DAYS and scan["soft_violations"] == 0
    mode = _mode(spark)
    assert scan["parts_pruned"] == (0 if mode == "off" else DAYS - kept), where  # soft counts, reads all
    assert scan["parts_read"] == (kept if mode == "on" else DAYS), where


def test_casts_of_text_columns_prune_at_the_defaults(spark: SparkSession, events: str) -> None:
    # amount_text of row n is (n % 5000) / 10: 60.0 and above from row 600 (day 6) on.
    _assert_reads(spark, events, "CAST(amount_text AS DECIMAL(8,1)) >= 60.0", kept=2)
    _assert_reads(spark, events, "CAST(created_text AS TIMESTAMP) >= TIMESTAMP '2026-01-08 00:00:00'", kept=1)
    _assert_reads(spark, events, "CAST(amount_text AS DOUBLE) > 1000", kept=0)


def test_json_and_variant_paths_with_numeric_strings_prune_at_the_defaults(spark: SparkSession, events: str) -> None:
    sixth_day_ms = (START_S + 6 * 86_400) * 1000
    _assert_reads(spark, events, f"variant_get(payload, '$.ts', 'bigint') >= {sixth_day_ms}", kept=2)
    _assert_reads(spark, events, f"try_variant_get(payload, '$.ts', 'bigint') >= {sixth_day_ms}", kept=2)
    _assert_reads(spark, events, f"CAST(get_json_object(js, '$.ts') AS BIGINT) >= {sixth_day_ms}", kept=2)


def test_pushdown_off_reads_every_part_with_the_same_rows(spark: SparkSession, events: str, session_conf) -> None:
    with session_conf("spark.sparkpersist.pushdown.mode", "off"):
        _assert_reads(spark, events, "CAST(amount_text AS DECIMAL(8,1)) >= 60.0", kept=2)


def test_a_cast_that_no_value_satisfies_rules_out_every_part(spark: SparkSession, events: str) -> None:
    rows = spark.sql(f"SELECT count(*) AS c FROM persist.{events} WHERE CAST(amount_text AS DECIMAL(8,1)) < 0").first()
    assert rows.c == 0
    [scan] = sparkpersist.last_scans(spark)
    assert scan["parts_pruned"] == DAYS


def test_lookups_of_strings_no_part_holds_at_json_and_variant_places(spark: SparkSession, events: str) -> None:
    # Every day holds the kinds "buy", "click" and "view": "cart" lies inside every part's bounds.
    _assert_reads(spark, events, "payload:kind::string = 'cart'", kept=0)
    _assert_reads(spark, events, "variant_get(payload, '$.kind', 'string') IN ('cart', 'sell')", kept=0)
    _assert_reads(spark, events, "get_json_object(js, '$.kind') = 'cart'", kept=0)
    _assert_reads(spark, events, "get_json_object(js, '$.kind') = 'buy'", kept=DAYS)


def test_lookups_of_integers_no_part_holds_at_json_and_variant_places(spark: SparkSession, events: str) -> None:
    # Every day holds the codes 7, 107, 207, 307 and 407: 150 and 250 lie inside every part's bounds.
    _assert_reads(spark, events, "payload:code::int = 150", kept=0)
    _assert_reads(spark, events, "variant_get(payload, '$.code', 'bigint') IN (150, 250)", kept=0)
    _assert_reads(spark, events, "CAST(get_json_object(js, '$.code') AS INT) = 150", kept=0)
    _assert_reads(spark, events, "variant_get(payload, '$.code', 'int') = 107", kept=DAYS)


def test_collated_strings_prune_in_their_collation(spark: SparkSession, events: str) -> None:
    _assert_reads(spark, events, "city = 'CITY-3'", kept=1)  # day 2's "city-3", equal ignoring case
    _assert_reads(spark, events, "city IN ('bity-0', 'HITY-5')", kept=2)  # days 1 and 7
    _assert_reads(spark, events, "city = 'dity-10'", kept=0)  # inside day 3's bounds, not in its filter
    # Days 5, 6, 7 ("Fity", "gity", "Hity"); in byte order the lower-case days 0, 2, 4 would be >= 'F' too.
    _assert_reads(spark, events, "city >= 'F'", kept=3)
