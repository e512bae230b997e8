"""Clustering from PySpark: ``cluster_by`` on the first write, ``set_cluster_by``, ``compact(cluster=True)``.

Answers are compared with plain Spark over the same rows; pruning with the scan reports.
"""
from __future__ import annotations

import pytest
from pyspark.sql import DataFrame, functions as F

import sparkpersist

DAY = 86_400_000
COUNTRIES = ["BR", "DE", "FR", "IN", "JP", "MX", "NG", "US"]


def _day(spark, d: int) -> DataFrame:
    """Day ``d``: 800 events of 8 countries and 1,000 users, ingested at its end."""
    ids = spark.range(d * 800, (d + 1) * 800, 1, 1)
    return ids.select(
        "id",
        F.element_at(F.array(*[F.lit(c) for c in COUNTRIES]), ((F.xxhash64("id") % 8 + 8) % 8 + 1).cast("int")).alias("country"),
        ((F.xxhash64("id", F.lit(1)) % 1000 + 1000) % 1000).alias("user_id"),
        F.lit((d + 1) * DAY - 1).cast("bigint").alias("ingest_ms"))


def _parts_read(spark, sql: str) -> int:
    spark.sql(sql).collect()
    [scan] = sparkpersist.last_scans(spark)
    return scan["parts_total"] - scan["parts_pruned"]


def test_cluster_by_lays_sealed_days_out_so_filters_on_the_columns_prune(spark, shard_name, session_conf) -> None:
    days = [_day(spark, d) for d in range(4)]
    for df in days:
        sparkpersist.write(df, shard_name, time_col="ingest_ms", cluster_by=["country", "user_id"])
    oracle = days[0]
    for df in days[1:]:
        oracle = oracle.union(df)
    oracle.drop("ingest_ms").createOrReplaceTempView(f"{shard_name}_oracle")
    where = "country = 'JP' AND user_id < 500"
    before = _parts_read(spark, f"SELECT * FROM persist.{shard_name} WHERE {where}")
    with session_conf("spark.sparkpersist.cluster.partBytes", "1500"):
        summary = sparkpersist.compact(spark, shard_name)
    # Every day is sealed (the shard's upper has reached its end), so each is one clustered batch.
    batches = spark.sql(f"SELECT runs, parts FROM persist.{shard_name}.batches ORDER BY lower").collect()
    assert summary["groups_merged"] == 4 and len(batches) == 4
    assert all(b.runs == b.parts > 1 for b in batches)
    rows = sorted(map(tuple, spark.sql(f"SELECT * FROM persist.{shard_name} WHERE {where}").collect()))
    assert rows == sorted(map(tuple, spark.sql(f"SELECT * FROM {shard_name}_oracle WHERE {where}").collect()))
    after = _parts_read(spark, f"SELECT * FROM persist.{shard_name} WHERE {where}")
    total = sum(b.parts for b in batches)
    assert before == 4 and after < total // 2, (before, after, total)
    # cluster=True lays every sealed day out again; without it, nothing is left to do.
    assert sparkpersist.compact(spark, shard_name)["rounds"] == 0
    assert sparkpersist.compact(spark, shard_name, cluster=True)["groups_merged"] == 4


def test_set_cluster_by_changes_and_clears_the_columns_and_refuses_bad_ones(spark, shard_name) -> None:
    sparkpersist.write(_day(spark, 0), shard_name, time_col="ingest_ms")
    assert sparkpersist.set_cluster_by(spark, shard_name, "USER_ID") == ["user_id"]
    assert sparkpersist.set_cluster_by(spark, shard_name, ["country", "user_id"]) == ["country", "user_id"]
    with pytest.raises(sparkpersist.InvalidInputError, match="clustered by \\(country, user_id\\), not \\(id\\)"):
        sparkpersist.write(_day(spark, 1), shard_name, time_col="ingest_ms", cluster_by="id")
    sparkpersist.write(_day(spark, 1), shard_name, time_col="ingest_ms", cluster_by=["Country", "user_id"])
    with pytest.raises(sparkpersist.InvalidInputError, match="not column\\(s\\) of the table"):
        sparkpersist.set_cluster_by(spark, shard_name, ["nope"])
    assert sparkpersist.set_cluster_by(spark, shard_name, None) == []
    with pytest.raises(sparkpersist.ShardNotFoundError):
        sparkpersist.set_cluster_by(spark, "cluster_nowhere", ["id"])
    with pytest.raises(sparkpersist.InvalidInputError, match="cluster must be True or False"):
        sparkpersist.compact(spark, shard_name, cluster="yes")  # type: ignore[arg-type]
