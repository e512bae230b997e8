"""A Spark Connect client's day with shards: run as ``python connect_client.py sc://host:port``.

Prints one JSON object with what each step returned; ``tests/test_connect.py`` checks it. Runs in
its own process: a Spark Connect session and a classic one do not share a Python process.
"""
from __future__ import annotations

import json
import sys

from pyspark.sql import SparkSession

import sparkpersist


def rows(spark: SparkSession, query: str) -> list[list]:
    return sorted([list(r) for r in spark.sql(query).collect()], key=repr)


def main(url: str) -> None:
    spark = SparkSession.builder.remote(url).getOrCreate()
    out: dict = {"connect": type(spark).__module__}
    spark.sql("CREATE TABLE persist.acc (id INT, bal DOUBLE, tag STRING) TBLPROPERTIES ('order_by' = 'id')")
    spark.createDataFrame([(1, 10.0, "a"), (2, 20.0, "b"), (2, 20.0, "b"), (3, 30.0, "c")], "id int, bal double, tag string") \
        .writeTo("persist.acc").option("max_rows_per_part", "2").append()
    out["after_append"] = rows(spark, "SELECT * FROM persist.acc")
    out["parts_after_append"] = sparkpersist.parts(spark, "acc").select("key").distinct().count()
    # Updates through the package's write (over Connect: the shard's updates table).
    upper = spark.sql("SELECT max(upper) FROM persist.acc.batches").collect()[0][0]
    batch = sparkpersist.write(
        spark.createDataFrame([(3, 30.0, "c", upper + 10, -1), (3, 33.0, "c", upper + 10, 1)],
                              "id int, bal double, tag string, t long, d long"),
        "acc", time_col="t", diff_col="d")
    out["update_batch"] = [batch.lower, batch.upper, batch.rows]
    out["after_update"] = rows(spark, "SELECT * FROM persist.acc")
    spark.createDataFrame([(1, 11.0, "u"), (4, 40.0, "new")], "id int, bal double, tag string") \
        .createOrReplaceTempView("changes")
    spark.sql("MERGE INTO persist.acc t USING changes s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    out["after_merge"] = rows(spark, "SELECT * FROM persist.acc")
    spark.sql("DELETE FROM persist.acc WHERE id = 2")
    out["after_delete"] = rows(spark, "SELECT * FROM persist.acc")
    spark.sql("SELECT * FROM persist.acc WHERE id = 4").collect()
    out["last_scans"] = [{k: s[k] for k in ("shard", "mode", "parts_total", "parts_read", "parts_pruned", "soft_violations")}
                         for s in sparkpersist.last_scans(spark)]
    compacted = sparkpersist.compact(spark, "acc", retention_ms=0)
    out["compact"] = {k: compacted[k] for k in ("batches_before", "batches_after")}
    out["compact_windows"] = [[w["start"], w["action"], w["reason"]] for w in compacted["windows"]]
    out["after_compact"] = rows(spark, "SELECT * FROM persist.acc")
    out["shards"] = sparkpersist.shards(spark)
    out["index_columns"] = sparkpersist.set_index_columns(spark, "acc", ["tag"])
    try:
        sparkpersist.register_monotone(spark, "f", lambda x: x + 1, "up", return_type="bigint")
        out["register_monotone"] = "worked"
    except sparkpersist.ConnectNotSupportedError as e:
        out["register_monotone"] = str(e)
    print(json.dumps(out))
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])
