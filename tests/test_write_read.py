"""Writing shards from PySpark and reading them back through the persist catalog."""
from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from pyspark.sql import Row
from pyspark.sql import functions as F
from pyspark.sql.types import (BinaryType, BooleanType, ByteType, DateType, DecimalType, DoubleType, FloatType,
                               IntegerType, LongType, ShortType, StringType, StructField, StructType,
                               TimestampNTZType, TimestampType)

import sparkpersist

ALL_TYPES = StructType([
    StructField("b", BooleanType()), StructField("i8", ByteType()), StructField("i16", ShortType()),
    StructField("i32", IntegerType()), StructField("i64", LongType()), StructField("f32", FloatType()),
    StructField("f64", DoubleType()), StructField("dec", DecimalType(20, 4)), StructField("s", StringType()),
    StructField("bin", BinaryType()), StructField("d", DateType()), StructField("ts", TimestampType()),
    StructField("ntz", TimestampNTZType()),
])

ALL_TYPES_ROWS = [
    (True, -128, -32768, -2**31, -2**63, float("nan"), -0.0, Decimal("-12345678901234.5678"), "",
     b"", dt.date(1, 1, 1), dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc), dt.datetime(1900, 1, 1)),
    (False, 127, 32767, 2**31 - 1, 2**63 - 1, float("inf"), float("nan"), Decimal("0.0001"),
     "日本語 ✓ " + "x" * 20_000, b"\x00\xff", dt.date(9999, 12, 31),
     dt.datetime(2026, 11, 21, 12, 30, tzinfo=dt.timezone.utc), dt.datetime(2099, 12, 31, 23, 59, 59)),
    (None,) * 13,
]


def _rows(spark, sql: str) -> list[tuple]:
    return [tuple(r) for r in spark.sql(sql).collect()]


def test_every_type_round_trips(spark, shard_name) -> None:
    df = spark.createDataFrame(ALL_TYPES_ROWS, ALL_TYPES)
    batch = sparkpersist.write(df, shard_name)
    assert batch.rows == 3 and batch.lower == 0 and batch.upper > 0
    back = spark.table(f"persist.{shard_name}")
    assert back.schema.fieldNames() == ALL_TYPES.fieldNames()
    assert [f.dataType for f in back.schema.fields] == [f.dataType for f in ALL_TYPES.fields]
    got = sorted(map(repr, (tuple(r) for r in back.collect())))
    want = sorted(map(repr, (tuple(r) for r in df.collect())))
    assert got == want


def test_append_only_batches_and_as_of(spark, shard_name, session_conf) -> None:
    first = sparkpersist.write(spark.createDataFrame([(1, 100), (2, 100)], "k int, t bigint"), shard_name, time_col="t")
    second = sparkpersist.write(spark.createDataFrame([(3, 200)], "k int, t bigint"), shard_name, time_col="t")
    assert (first.lower, first.upper, second.lower, second.upper) == (0, 101, 101, 201)
    assert _rows(spark, f"SELECT k FROM persist.{shard_name} ORDER BY k") == [(1,), (2,), (3,)]
    with session_conf("spark.sparkpersist.asOf", "150"):
        assert _rows(spark, f"SELECT k FROM persist.{shard_name} ORDER BY k") == [(1,), (2,)]
        assert _rows(spark, f"SELECT k, time, diff FROM persist.{shard_name}.updates ORDER BY k") == \
            [(1, 100, 1), (2, 100, 1)]


def test_as_of_outside_since_upper_is_a_clear_error(spark, shard_name, session_conf) -> None:
    sparkpersist.write(spark.createDataFrame([(1, 10)], "k int, t bigint"), shard_name, time_col="t")
    with session_conf("spark.sparkpersist.asOf", "11"):
        with pytest.raises(Exception, match=r"only times before upper = 11 are complete"):
            spark.table(f"persist.{shard_name}").collect()


def test_retractions_consolidate(spark, shard_name, session_conf) -> None:
    updates = spark.createDataFrame(
        [("a", 1, 1), ("b", 1, 3), ("c", 1, 1), ("a", 2, -1), ("c", 2, 1), ("b", 3, -1), ("d", 3, 1), ("d", 3, -1)],
        "name string, t bigint, d bigint")
    sparkpersist.write(updates, shard_name, time_col="t", diff_col="d")
    assert _rows(spark, f"SELECT name FROM persist.{shard_name} ORDER BY name") == \
        [("b",), ("b",), ("c",), ("c",)]
    with session_conf("spark.sparkpersist.asOf", "1"):
        assert _rows(spark, f"SELECT name FROM persist.{shard_name} ORDER BY name") == \
            [("a",), ("b",), ("b",), ("b",), ("c",)]


def test_times_below_upper_write_nothing(spark, shard_name) -> None:
    sparkpersist.write(spark.createDataFrame([(1, 50)], "k int, t bigint"), shard_name, time_col="t")
    parts_before = sparkpersist.parts(spark, shard_name).count()
    with pytest.raises(sparkpersist.InvalidInputError,
                       match=r"every time must be >= the shard's upper 51 .* holds 49. Nothing was written"):
        sparkpersist.write(spark.createDataFrame([(2, 49)], "k int, t bigint"), shard_name, time_col="t")
    assert sparkpersist.parts(spark, shard_name).count() == parts_before
    assert _rows(spark, f"SELECT k FROM persist.{shard_name}") == [(1,)]


def test_parts_split_by_max_rows_and_carry_stats(spark, shard_name) -> None:
    df = spark.range(0, 1000, numPartitions=2).select(F.col("id").alias("v"), (F.col("id") % 7).alias("m"))
    batch = sparkpersist.write(df, shard_name, max_rows_per_part=100)
    assert batch.parts == 10 and batch.rows == 1000
    parts = sparkpersist.parts(spark, shard_name)
    assert parts.count() == 10
    assert parts.agg(F.sum("row_count")).first()[0] == 1000
    v_stats = (parts.select(F.explode("column_stats").alias("c")).where("c.column = 'v'")
               .select("c.lower", "c.upper", "c.null_count").collect())
    assert sorted((int(r.lower), int(r.upper)) for r in v_stats) == [(i * 100, i * 100 + 99) for i in range(10)]
    assert all(r.null_count == 0 for r in v_stats)


def test_a_part_read_alone_by_pyarrow_describes_itself(spark, shard_name, root: Path) -> None:
    sparkpersist.write(spark.createDataFrame([(1, "x")], "k int, s string"), shard_name)
    key = sparkpersist.parts(spark, shard_name).first().key
    part = pq.ParquetFile(root / shard_name / key)
    meta = {k.decode(): v.decode() for k, v in part.metadata.metadata.items()}
    assert meta["sparkpersist.format.version"] == "2"
    assert int(meta["sparkpersist.time"]) > 0  # stamped with its commit time: no time or diff columns
    assert meta["sparkpersist.shard"] == shard_name
    logical = json.loads(meta["sparkpersist.schema"])
    assert "k" in json.dumps(logical) and "s" in json.dumps(logical)
    arrow = part.schema_arrow
    ids = {f.name: int(f.metadata[b"PARQUET:field_id"]) for f in arrow}
    assert ids == {"k": 1, "s": 2}


def test_bad_shard_name_is_rejected(spark) -> None:
    with pytest.raises(sparkpersist.InvalidInputError, match="shard name"):
        sparkpersist.write(spark.range(1), "no/slashes")


def test_wrong_types_name_the_column(spark, shard_name) -> None:
    sparkpersist.write(spark.createDataFrame([(1,)], "k int"), shard_name)
    with pytest.raises(sparkpersist.InvalidInputError, match="'k'"):
        sparkpersist.write(spark.createDataFrame([("one",)], "k string"), shard_name)


def test_missing_shard(spark) -> None:
    with pytest.raises(sparkpersist.ShardNotFoundError, match="no_such_shard"):
        sparkpersist.parts(spark, "no_such_shard")


def test_sql_create_insert_select_drop(spark, shard_name) -> None:
    spark.sql(f"CREATE TABLE persist.{shard_name} (id BIGINT, label STRING) TBLPROPERTIES ('order_by' = 'id')")
    spark.sql(f"INSERT INTO persist.{shard_name} SELECT id, concat('n', id) FROM range(5)")
    spark.sql(f"INSERT INTO persist.{shard_name} VALUES (10, 'ten')")
    assert _rows(spark, f"SELECT id, label FROM persist.{shard_name} WHERE id >= 4 ORDER BY id") == \
        [(4, "n4"), (10, "ten")]
    assert shard_name in sparkpersist.shards(spark)
    spark.sql(f"DROP TABLE persist.{shard_name}")
    assert shard_name not in sparkpersist.shards(spark)


@pytest.mark.parametrize("case_sensitive", ["true", "false"])
def test_names_equal_ignoring_case_are_refused_and_leave_nothing(spark, shard_name, root: Path,
                                                                 case_sensitive: str, session_conf) -> None:
    with session_conf("spark.sql.caseSensitive", case_sensitive):
        with pytest.raises(sparkpersist.InvalidInputError, match="'a' and 'A' are equal ignoring case"):
            sparkpersist.write(spark.sql("SELECT 1 AS a, 100 AS A"), shard_name)
        with pytest.raises(sparkpersist.InvalidInputError, match="fields of struct s 'x' and 'X'"):
            sparkpersist.write(spark.sql("SELECT named_struct('x', 1, 'X', 2) AS s"), shard_name)
    assert shard_name not in sparkpersist.shards(spark)
    assert not (root / shard_name).exists()


def test_char_varchar_write_checks_length_and_pads(spark, shard_name) -> None:
    spark.sql(f"CREATE TABLE persist.{shard_name} (c CHAR(4), v VARCHAR(3))")
    spark.sql(f"INSERT INTO persist.{shard_name} VALUES ('ab', 'xy')")
    sparkpersist.write(spark.createDataFrame([("q", "r")], "c string, v string"), shard_name)
    assert sorted(_rows(spark, f"SELECT c, v FROM persist.{shard_name}")) == [("ab  ", "xy"), ("q   ", "r")]
    with pytest.raises(Exception, match="EXCEED_LIMIT_LENGTH"):
        sparkpersist.write(spark.createDataFrame([("q", "long")], "c string, v string"), shard_name)
    assert len(_rows(spark, f"SELECT * FROM persist.{shard_name}")) == 2


def test_calendar_interval_is_refused_before_writing(spark, shard_name, root: Path) -> None:
    with pytest.raises(sparkpersist.InvalidInputError, match="column 'i' has type INTERVAL"):
        sparkpersist.write(spark.sql("SELECT make_interval(1, 2) AS i"), shard_name)
    assert not (root / shard_name).exists()
