"""Clustering from PySpark: ``cluster_by`` on the first write, ``set_cluster_by``, ``compact(cluster=True)``.

Answers are compared with plain Spark over the same rows; pruning with the scan reports.
"""
from __future__ import annotations

import time

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


ROWS = 20_000
LATER = "batches appended later are laid out when it seals"
WAITING = "open: laid out along (country) once it seals, or now with cluster => true"


def _insert(spark, table: str, a: int) -> None:
    """INSERT ``a``: ids [a * ROWS, (a + 1) * ROWS) of 20 countries ``c0``..``c19``, in 2 parts."""
    spark.sql(f"INSERT INTO persist.{table} SELECT id, concat('c', CAST(id % 20 AS STRING)), id * 0.5 "
              f"FROM range({a * ROWS}, {(a + 1) * ROWS}, 1, 2)")


def _batches(spark, table: str) -> list:
    return spark.sql(f"SELECT batch_id, appends, parts, operation FROM persist.{table}.batches ORDER BY lower").collect()


def test_newcomer_clusters_todays_open_window_on_request(spark, shard_name, session_conf, tmp_path) -> None:
    """Issue 54's transcript: CREATE TABLE ... CLUSTER BY, four INSERTs today, compact with cluster => true."""
    left = DAY - time.time_ns() // 1_000_000 % DAY  # commit times across a UTC midnight would split the window
    if left < 60_000:
        time.sleep(left / 1000 + 1)
    spark.sql(f"CREATE TABLE persist.{shard_name} (id BIGINT, country STRING, amount DOUBLE) CLUSTER BY (country)")
    for a in range(4):
        _insert(spark, shard_name, a)
    where = "country = 'c7'"
    assert _parts_read(spark, f"SELECT * FROM persist.{shard_name} WHERE {where}") == 8
    # Without cluster => true, today's open window is left alone and the result says why.
    summary = sparkpersist.compact(spark, shard_name)
    [window] = summary["windows"]
    today = window["start"]
    assert (summary["rounds"], window) == (0, {"start": today, "end": today + DAY, "action": "none",
                                               "reason": WAITING, "parts_before": 8, "parts_after": 8})
    [row] = spark.sql(f"CALL persist.system.compact(shard => '{shard_name}', cluster => true)").collect()
    [clustered] = _batches(spark, shard_name)
    # One part: the window's 80,000 rows are far below spark.sparkpersist.cluster.partBytes (32 MiB).
    assert [w.asDict() for w in row.windows] == [{
        "start": today, "end": today + DAY, "action": "clustered", "parts_before": 8, "parts_after": 1,
        "reason": f"open: laid out along (country) on request (cluster => true); {LATER}"}]
    assert (row.parts_before, row.parts_after, clustered.appends, clustered.parts) == (8, 1, 4, 1)
    copy = str(tmp_path / "plain")
    spark.range(0, 4 * ROWS).selectExpr("id", "concat('c', CAST(id % 20 AS STRING)) AS country",
                                        "id * 0.5 AS amount").write.parquet(copy)
    with session_conf("spark.sql.parquet.filterPushdown", "false"):
        expected = sorted(map(tuple, spark.read.parquet(copy).where(where).collect()))
    assert sorted(map(tuple, spark.sql(f"SELECT * FROM persist.{shard_name} WHERE {where}").collect())) == expected
    assert _parts_read(spark, f"SELECT * FROM persist.{shard_name} WHERE {where}") == 1  # of the 8 before: <= 1/5

    # A later INSERT into the still open window: automatic compaction leaves the clustered batch alone.
    with session_conf("spark.sparkpersist.compact.auto", "true"):
        _insert(spark, shard_name, 4)
    assert [(b.batch_id, b.appends) for b in _batches(spark, shard_name)][0] == (clustered.batch_id, 4)
    # A write at the window's end seals it: compaction then lays the later batch out, the first stays.
    seal = spark.range(1).selectExpr("CAST(-1 AS BIGINT) AS id", "'c7' AS country", "CAST(0 AS DOUBLE) AS amount",
                                     f"CAST({today + DAY} AS BIGINT) AS t")
    sparkpersist.write(seal, shard_name, time_col="t")
    summary = sparkpersist.compact(spark, shard_name)
    assert [(w["action"], w["reason"]) for w in summary["windows"]] == [
        ("clustered", "sealed: laid out along (country)"), ("none", WAITING)]
    first, later, tomorrow = _batches(spark, shard_name)
    assert (first.batch_id, later.appends, later.operation, tomorrow.appends) == (clustered.batch_id, 1,
                                                                                   clustered.operation, 1)
    assert spark.sql(f"SELECT count(*), count(DISTINCT id) FROM persist.{shard_name}").head() == (5 * ROWS + 1,
                                                                                                5 * ROWS + 1)
