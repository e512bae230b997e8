"""A Spark Connect client's history and RESTORE through SQL: prints one JSON line of what it saw."""
from __future__ import annotations

import json
import sys
import tempfile
from typing import Any

from pyspark.sql import SparkSession


def rows(df: Any) -> list[list[Any]]:
    return sorted([list(r) for r in df.collect()], key=repr)


def main(url: str) -> None:
    spark = SparkSession.builder.remote(url).getOrCreate()
    spark.sql("CREATE TABLE persist.hist (k INT, v STRING) TBLPROPERTIES ('order_by' = 'k')")
    spark.sql("INSERT INTO persist.hist VALUES (1, 'a'), (2, 'b'), (2, 'b')")
    spark.sql("INSERT INTO persist.hist VALUES (3, NULL)")
    at_two = rows(spark.sql("SELECT * FROM persist.hist VERSION AS OF 2"))
    copy = tempfile.mkdtemp() + "/rows"
    spark.sql("SELECT * FROM persist.hist").write.parquet(copy)
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")
    parquet = rows(spark.read.parquet(copy))
    spark.sql("DELETE FROM persist.hist WHERE k = 1")
    spark.sql("UPDATE persist.hist SET v = 'B' WHERE k = 2")
    [restore] = spark.sql("RESTORE TABLE persist.hist TO VERSION AS OF 2").collect()
    history = spark.sql("DESCRIBE HISTORY persist.hist").collect()
    print(json.dumps({
        "at_two": at_two,
        "parquet": parquet,
        "after": rows(spark.table("persist.hist")),
        "restore": [restore["version"], restore["num_restored_rows"], restore["num_retracted_rows"]],
        "history": [[h["version"], h["operation"], h["operationParameters"].get("version")] for h in history],
        "user": history[0]["userName"],
        "engine": history[0]["engineInfo"],
    }))


if __name__ == "__main__":
    main(sys.argv[1])
