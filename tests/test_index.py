"""Membership filters (index_columns) and declared monotone functions, seen from PySpark."""
from __future__ import annotations

import pytest
from pyspark.sql import functions as F

import sparkpersist

PARTS = 6


@pytest.fixture(scope="module")
def visits(spark) -> str:
    """Six parts; part p holds user ids p, p + 6, ..., p + 114: every part's min/max spans them all."""
    name = "index_visits"
    for p in range(PARTS):
        rows = spark.range(20, numPartitions=1).select((F.col("id") * PARTS + p).alias("user_id"),
                                                        F.lit(p + 1).cast("bigint").alias("ingest_ms"))
        sparkpersist.write(rows, name, time_col="ingest_ms", index_columns="user_id")
    return name


def test_in_list_reads_only_parts_holding_the_ids(spark, visits) -> None:
    rows = spark.sql(f"SELECT user_id FROM persist.{visits} WHERE user_id IN (7, 20, 1000)").collect()
    assert sorted(r.user_id for r in rows) == [7, 20]
    [scan] = sparkpersist.last_scans(spark)
    # 7 is in part 1, 20 in part 2; min/max alone would keep all six.
    assert (scan["parts_total"], scan["parts_pruned"], scan["soft_violations"]) == (PARTS, PARTS - 2, 0)


def test_index_columns_must_name_shard_columns(spark, visits) -> None:
    rows = spark.range(1).select(F.col("id").alias("user_id"), F.lit(100).cast("bigint").alias("ingest_ms"))
    with pytest.raises(sparkpersist.InvalidInputError, match="index_columns names 'nope'"):
        sparkpersist.write(rows, visits, time_col="ingest_ms", index_columns=["nope"])


def test_register_monotone_refuses_bad_directions(spark) -> None:
    with pytest.raises(sparkpersist.InvalidInputError, match="'up' or 'down'"):
        sparkpersist.register_monotone(spark, "bucket", None, "sideways")


def test_register_monotone_declares_a_registered_function(spark, session_conf) -> None:
    with session_conf("spark.sparkpersist.udf.monotone", ""):
        sparkpersist.register_monotone(spark, "Bucket", None, "down")
        assert spark.conf.get("spark.sparkpersist.udf.monotone") == "bucket:down"


def test_set_index_columns_makes_sql_inserts_index_and_refuses_bad_columns(spark) -> None:
    name = "index_property"
    spark.sql(f"CREATE TABLE persist.{name} (user_id BIGINT, flag BOOLEAN)")
    assert sparkpersist.set_index_columns(spark, name, "USER_ID") == ["user_id"]
    for p in range(PARTS):
        spark.sql(f"INSERT INTO persist.{name} SELECT /*+ COALESCE(1) */ id * {PARTS} + {p}, true FROM range(20)")
    spark.conf.set("spark.sparkpersist.stats.autoIndexValues", "0")  # pruning below comes from the property alone
    try:
        rows = spark.sql(f"SELECT user_id FROM persist.{name} WHERE user_id IN (7, 20, 1000)").collect()
    finally:
        spark.conf.unset("spark.sparkpersist.stats.autoIndexValues")
    assert sorted(r.user_id for r in rows) == [7, 20]
    [scan] = sparkpersist.last_scans(spark)
    assert (scan["parts_total"], scan["parts_pruned"]) == (PARTS, PARTS - 2)
    props = {r.key: r.value for r in spark.sql(f"SHOW TBLPROPERTIES persist.{name}").collect()}
    assert props["sparkpersist.indexColumns"] == "user_id"
    with pytest.raises(sparkpersist.InvalidInputError, match=r"cannot index 'flag' \(BOOLEAN\)"):
        sparkpersist.set_index_columns(spark, name, ["flag"])
    assert sparkpersist.set_index_columns(spark, name, None) == []
    with pytest.raises(sparkpersist.ShardNotFoundError):
        sparkpersist.set_index_columns(spark, "index_nowhere", ["user_id"])
