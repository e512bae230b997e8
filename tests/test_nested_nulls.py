"""Nulls inside arrays, maps and structs across batches (issue 29): a batch with nulls inside,
written after one without, reads back exactly as plain Spark gives the same rows, in every pushdown
mode, from the Python writer and from SQL; a batch whose part cannot be read is removed on purpose."""
from __future__ import annotations

from pathlib import Path

import pytest

import sparkpersist

# First batch without nulls inside, then one with, as `SELECT <expr> AS a`.
VARIANTS = {
    "array": ("array(1, 2)", "array(CAST(NULL AS INT))"),
    "map_value": ("map('k', 1)", "map('k', CAST(NULL AS INT))"),
    "struct_field": ("named_struct('x', 1)", "named_struct('x', CAST(NULL AS INT))"),
    "map_key": ("map(named_struct('x', 1), 1)", "map(named_struct('x', CAST(NULL AS INT)), 1)"),
    "deep": ("array(named_struct('x', array(1)))", "array(named_struct('x', array(CAST(NULL AS INT))))"),
}


def _in_every_mode(spark, session_conf, shard: str) -> list:
    """The shard's rows with pushdown on, soft (failing on any violation) and off: they must agree."""
    results = []
    for mode in ("on", "soft", "off"):
        with session_conf("spark.sparkpersist.pushdown.mode", mode), \
                session_conf("spark.sparkpersist.pushdown.soft.failOnViolation", "true"):
            results.append(sorted(map(str, spark.table(f"persist.{shard}").collect())))
    assert results[0] == results[1] == results[2]
    return results[0]


def _plain_spark(spark, first: str, second: str) -> list:
    return sorted(map(str, spark.sql(f"SELECT {first} AS a UNION ALL SELECT {second} AS a").collect()))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_python_writer_second_batch_with_nulls_inside_reads_back(spark, session_conf, shard_name, variant) -> None:
    first, second = VARIANTS[variant]
    sparkpersist.write(spark.sql(f"SELECT {first} AS a"), shard_name)
    sparkpersist.write(spark.sql(f"SELECT {second} AS a"), shard_name)
    assert _in_every_mode(spark, session_conf, shard_name) == _plain_spark(spark, first, second)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_sql_insert_with_nulls_inside_reads_back(spark, session_conf, shard_name, variant) -> None:
    first, second = VARIANTS[variant]
    spark.sql(f"CREATE TABLE persist.{shard_name} AS SELECT {first} AS a")
    spark.sql(f"INSERT INTO persist.{shard_name} SELECT {second}")
    assert _in_every_mode(spark, session_conf, shard_name) == _plain_spark(spark, first, second)


def test_not_null_declared_inside_a_struct_is_enforced_then_dropped(spark, session_conf, shard_name) -> None:
    spark.sql(f"CREATE TABLE persist.{shard_name} (id INT, s STRUCT<x: INT NOT NULL>)")
    spark.sql(f"INSERT INTO persist.{shard_name} SELECT 1, named_struct('x', 1)")
    with pytest.raises(Exception, match="NOT_NULL_ASSERT_VIOLATION"):
        sparkpersist.write(spark.sql("SELECT 2 AS id, named_struct('x', CAST(NULL AS INT)) AS s"), shard_name)
    spark.sql(f"ALTER TABLE persist.{shard_name} ALTER COLUMN s.x DROP NOT NULL")
    sparkpersist.write(spark.sql("SELECT 2 AS id, named_struct('x', CAST(NULL AS INT)) AS s"), shard_name)
    assert _in_every_mode(spark, session_conf, shard_name) == ["Row(id=1, s=Row(x=1))", "Row(id=2, s=Row(x=None))"]


def test_struct_fields_in_another_order_are_matched_by_name(spark, session_conf, shard_name) -> None:
    sparkpersist.write(spark.sql("SELECT named_struct('x', 1, 'y', 'a') AS s"), shard_name)
    sparkpersist.write(spark.sql("SELECT named_struct('y', 'b', 'x', 2) AS s"), shard_name)
    assert _in_every_mode(spark, session_conf, shard_name) == ["Row(s=Row(x=1, y='a'))", "Row(s=Row(x=2, y='b'))"]


def test_an_unreadable_batch_is_named_and_dropped(spark, session_conf, shard_name, root: Path) -> None:
    for i in range(3):
        sparkpersist.write(spark.createDataFrame([(i,)], "k bigint").coalesce(1), shard_name)
    batches = spark.table(f"persist.{shard_name}.batches").orderBy("lower").collect()
    middle = batches[1]["batch_id"]
    part = next((root / shard_name / "parts" / middle).glob("*.parquet"))
    part.write_bytes(b"not a parquet file")
    with pytest.raises(sparkpersist.UnreadablePartError, match=f"written by batch {middle} of shard '{shard_name}'"):
        with sparkpersist.translated_errors():
            spark.newSession().table(f"persist.{shard_name}").collect()
    dropped = sparkpersist.drop_batch(spark, shard_name, str(part))
    assert (dropped["batch_id"], dropped["parts"], dropped["rows"]) == (middle, 1, 1)
    assert _in_every_mode(spark, session_conf, shard_name) == ["Row(k=0)", "Row(k=2)"]
    with pytest.raises(sparkpersist.InvalidInputError, match="batch must be a batch id"):
        sparkpersist.drop_batch(spark, shard_name, "")
