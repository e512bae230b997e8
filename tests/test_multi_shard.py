"""Queries over several shards (issue 30): each shard is read at its own latest complete time, so a
fact shard joined to an older dimension shard counts every row, as plain Spark does over the same rows."""
from __future__ import annotations

import sparkpersist


def test_fact_joined_to_an_older_dimension_counts_every_row(spark, session_conf, shard_name) -> None:
    dim, fact = f"{shard_name}_dim", f"{shard_name}_fact"
    sparkpersist.write(spark.range(100).selectExpr("id AS k", "concat('n', id) AS name"), dim)
    sparkpersist.write(spark.range(20000).selectExpr("id % 100 AS k", "id AS v"), fact, order_by=["k"])
    query = f"SELECT count(*) FROM persist.{fact} f JOIN persist.{dim} d ON f.k = d.k"
    spark.range(100).selectExpr("id AS k", "concat('n', id) AS name").createOrReplaceTempView(f"{dim}_plain")
    spark.range(20000).selectExpr("id % 100 AS k", "id AS v").createOrReplaceTempView(f"{fact}_plain")
    plain = spark.sql(f"SELECT count(*) FROM {fact}_plain f JOIN {dim}_plain d ON f.k = d.k").collect()[0][0]
    assert plain == 20000
    for mode in ("on", "soft", "off"):
        with session_conf("spark.sparkpersist.pushdown.mode", mode), \
                session_conf("spark.sparkpersist.pushdown.soft.failOnViolation", "true"):
            assert spark.sql(query).collect()[0][0] == plain, mode
            scans = {s["shard"]: s for s in sparkpersist.last_scans(spark)}
            assert scans[fact]["parts_read"] == scans[fact]["parts_total"] == 2, scans
            assert scans[dim]["as_of"] < scans[fact]["as_of"], scans


def test_consistent_reads_the_common_time(spark, session_conf, shard_name) -> None:
    old, new = f"{shard_name}_old", f"{shard_name}_new"
    sparkpersist.write(spark.range(5).selectExpr("id AS k"), old)
    sparkpersist.write(spark.range(5).selectExpr("id AS k"), new)
    query = f"SELECT count(*) FROM persist.{old} o JOIN persist.{new} n ON o.k = n.k"
    assert spark.sql(query).collect()[0][0] == 5
    with session_conf("spark.sparkpersist.read.consistency", "consistent"):
        assert spark.sql(query).collect()[0][0] == 0
