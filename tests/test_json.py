"""JSON text declared with json_columns: recorded in the shard, and get_json_object filters prune."""
from __future__ import annotations

import pytest
from pyspark.sql import functions as F

import sparkpersist


def test_json_columns_prune_get_json_object(spark, shard_name) -> None:
    for part in range(3):
        df = (spark.range(10, numPartitions=1)
              .select((F.col("id") + part * 10).alias("n"),
                      F.format_string('{"ts": %d, "kind": "k%d"}', F.col("id") + part * 1000, F.lit(part)).alias("js")))
        sparkpersist.write(df, shard_name, json_columns="js")
    rows = spark.sql(f"SELECT n FROM persist.{shard_name} "
                     "WHERE CAST(get_json_object(js, '$.ts') AS BIGINT) >= 2005").collect()
    assert sorted(r.n for r in rows) == [25, 26, 27, 28, 29]
    [scan] = sparkpersist.last_scans(spark)
    mode = spark.conf.get("spark.sparkpersist.pushdown.mode", "on")
    assert scan["parts_total"] == 3
    assert scan["parts_pruned"] == 2 if mode in ("on", "soft") else scan["parts_pruned"] == 0


def test_json_columns_must_match_the_shard(spark, shard_name) -> None:
    df = spark.range(1).select(F.col("id").alias("n"), F.lit("{}").alias("js"))
    sparkpersist.write(df, shard_name, json_columns=["js"])
    with pytest.raises(Exception, match=r"its JSON columns are \(js\), fixed when the shard was created"):
        sparkpersist.write(df, shard_name, json_columns=["n"])
    with pytest.raises(Exception, match=r"only STRING columns can be declared JSON"):
        sparkpersist.write(df, shard_name + "_other", json_columns=["n"])
