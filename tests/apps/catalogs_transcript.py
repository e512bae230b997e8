"""Issue 51's transcript (namespaces, path tables, ``format("persist")``, RENAME, ANALYZE) as a user runs it.

``run(spark, where)`` works on a classic session and over Spark Connect; as a script,
``python catalogs_transcript.py sc://host:port <dir>`` runs it over Connect and prints its JSON.
``tests/test_catalogs.py`` checks the result with ``check``.
"""
from __future__ import annotations

import json
import sys
from typing import Any

from pyspark.sql import SparkSession

import sparkpersist


def rows(spark: SparkSession, query: str) -> list[list]:
    return sorted([list(r) for r in spark.sql(query).collect()], key=repr)


def run(spark: SparkSession, where: str, ns: str = "sales") -> dict[str, Any]:
    """Runs the transcript with shards in namespace ``ns`` and at paths under ``where``."""
    out: dict[str, Any] = {}
    spark.sql(f"CREATE NAMESPACE persist.{ns}")
    spark.sql(f"CREATE TABLE persist.{ns}.orders (id BIGINT, amount DOUBLE)")
    spark.sql(f"INSERT INTO persist.{ns}.orders VALUES (1, 2.5), (2, 4.0)")
    out["namespaces"] = [r[0] for r in spark.sql("SHOW NAMESPACES IN persist").collect()]
    out["orders"] = rows(spark, f"SELECT id, amount FROM persist.{ns}.orders")
    out["orders_part_rows"] = spark.sql(f"SELECT sum(row_count) FROM persist.{ns}.orders.parts").collect()[0][0]
    sparkpersist.write(spark.createDataFrame([(3, 1.0)], "id long, amount double"), f"{ns}.orders")
    out["orders_after_write"] = rows(spark, f"SELECT id, amount FROM persist.{ns}.orders")
    out["orders_parts_helper"] = sparkpersist.parts(spark, f"{ns}.orders").agg({"row_count": "sum"}).collect()[0][0]

    path = f"{where}/events"
    first = spark.createDataFrame([(1, "a"), (2, "b")], "id long, v string")
    first.write.format("persist").save(path)
    first.write.format("persist").mode("append").save(path)
    out["path_read"] = sorted([list(r) for r in spark.read.format("persist").load(path).collect()])
    spark.createDataFrame([(9, "z")], "id long, v string").write.format("persist").mode("overwrite").save(path)
    out["path_after_overwrite"] = rows(spark, f"SELECT * FROM persist.`{path}`")
    out["path_updates"] = rows(spark, f"SELECT id, diff FROM persist.`{path}`.updates")
    out["path_scan_shard"] = [s["shard"] for s in sparkpersist.last_scans(spark)]

    other = f"{where}/other/t"
    spark.sql(f"CREATE TABLE persist.`{other}` (id BIGINT)")
    spark.sql(f"INSERT INTO persist.`{other}` VALUES (5), (6)")
    out["other"] = rows(spark, f"SELECT id FROM persist.`{other}` WHERE id > 5")

    spark.sql(f"CREATE TABLE persist.{ns}.h (id BIGINT)")
    spark.sql(f"INSERT INTO persist.{ns}.h VALUES (7)")
    spark.sql(f"ALTER TABLE persist.{ns}.h RENAME TO persist.{ns}.h2")
    out["renamed"] = rows(spark, f"SELECT id FROM persist.{ns}.h2")
    try:
        spark.sql(f"ANALYZE TABLE persist.{ns}.h2 COMPUTE STATISTICS").collect()
        out["analyze"] = "accepted"
    except Exception as e:  # noqa: BLE001 - the client's error class differs between classic and Connect
        out["analyze"] = str(e)
    spark.sql(f"DROP NAMESPACE persist.{ns} CASCADE")
    out["namespaces_after_drop"] = [r[0] for r in spark.sql("SHOW NAMESPACES IN persist").collect()]
    return out


def check(out: dict[str, Any], ns: str = "sales") -> None:
    """What the transcript must give, on every client."""
    assert ns in out["namespaces"]
    assert out["orders"] == [[1, 2.5], [2, 4.0]]
    assert out["orders_part_rows"] == 2
    assert out["orders_after_write"] == [[1, 2.5], [2, 4.0], [3, 1.0]]
    assert out["orders_parts_helper"] == 3
    assert out["path_read"] == [[1, "a"], [1, "a"], [2, "b"], [2, "b"]]
    assert out["path_after_overwrite"] == [[9, "z"]]
    # Overwrite is retractions: four inserts, then four retractions and one insert.
    assert out["path_updates"] == [[1, -1], [1, -1], [1, 1], [1, 1], [2, -1], [2, -1], [2, 1], [2, 1], [9, 1]]
    assert len(out["path_scan_shard"]) == 1 and out["path_scan_shard"][0].endswith("/events")
    assert out["other"] == [[6]]
    assert out["renamed"] == [[7]]
    assert "is not needed: a persist table's statistics come from its parts" in out["analyze"]
    assert ns not in out["namespaces_after_drop"]


if __name__ == "__main__":
    session = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
    print(json.dumps(run(session, sys.argv[2])))
