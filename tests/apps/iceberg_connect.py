"""A Spark Connect client writes and changes shards, then syncs their Iceberg metadata: run as
``python iceberg_connect.py sc://host:port``.

Prints one JSON object with each ``ShardTable.syncIceberg()`` row; ``tests/test_iceberg.py`` reads
the metadata it names with pyiceberg. Runs in its own process: a Spark Connect session and a classic
one do not share a Python process.
"""
from __future__ import annotations

import json
import sys

from pyspark.sql import SparkSession

from sparkpersist import ShardTable


def main(url: str) -> None:
    spark = SparkSession.builder.remote(url).getOrCreate()
    out: dict = {"connect": type(spark).__module__}
    for name, iceberg in (("acc_iceberg", "true"), ("acc_plain", "false")):
        spark.sql(f"CREATE TABLE persist.{name} (id INT, tag STRING, bal DOUBLE) "
                  f"TBLPROPERTIES ('order_by' = 'id', 'sparkpersist.iceberg' = '{iceberg}')")
        spark.sql(f"INSERT INTO persist.{name} VALUES (1, 'a', 10.0), (2, 'b', NULL), (3, NULL, -0.0D)")
        spark.sql(f"INSERT INTO persist.{name} VALUES (4, 'd', double('NaN')), (5, 'e', 50.0)")
        table = ShardTable.forName(spark, name)
        table.delete("id = 2")
        table.update("id >= 4", {"tag": "upper(tag)"})
        out[name] = table.syncIceberg().asDict()
    print(json.dumps(out))
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])
