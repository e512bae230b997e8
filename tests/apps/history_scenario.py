"""History and RESTORE through SQL, as any session runs them (classic or Spark Connect): what it saw, as JSON-able values."""
from __future__ import annotations

import tempfile
from typing import Any

from pyspark.sql import DataFrame, SparkSession


def rows(df: DataFrame) -> list[list[Any]]:
    return sorted([list(r) for r in df.collect()], key=repr)


def run(spark: SparkSession, table: str) -> dict[str, Any]:
    """Writes, deletes, updates and restores ``table`` (``persist.<shard>``, which must not exist yet)."""
    spark.sql(f"CREATE TABLE {table} (k INT, v STRING) TBLPROPERTIES ('order_by' = 'k')")
    spark.sql(f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b'), (2, 'b')")
    spark.sql(f"INSERT INTO {table} VALUES (3, NULL)")
    at_two = rows(spark.sql(f"SELECT * FROM {table} VERSION AS OF 2"))
    copy = tempfile.mkdtemp() + "/rows"
    spark.sql(f"SELECT * FROM {table}").write.parquet(copy)
    pushdown = spark.conf.get("spark.sql.parquet.filterPushdown")
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")
    try:
        parquet = rows(spark.read.parquet(copy))
    finally:
        spark.conf.set("spark.sql.parquet.filterPushdown", pushdown)
    spark.sql(f"DELETE FROM {table} WHERE k = 1")
    spark.sql(f"UPDATE {table} SET v = 'B' WHERE k = 2")
    [restore] = spark.sql(f"RESTORE TABLE {table} TO VERSION AS OF 2").collect()
    history = spark.sql(f"DESCRIBE HISTORY {table}").collect()
    return {
        "at_two": at_two,
        "parquet": parquet,
        "after": rows(spark.table(table)),
        "still_at_four": rows(spark.sql(f"SELECT * FROM {table} VERSION AS OF 4")),
        "restore": [restore["version"], restore["num_restored_rows"], restore["num_retracted_rows"]],
        "history": [[h["version"], h["operation"], h["operationParameters"].get("version")] for h in history],
        "user": history[0]["userName"],
        "engine": history[0]["engineInfo"],
    }


def check(out: dict[str, Any]) -> None:
    """The restore equals VERSION AS OF 2 and a plain Parquet copy; later versions still read; history names each step."""
    assert out["at_two"] == [[1, "a"], [2, "b"], [2, "b"], [3, None]]
    assert out["parquet"] == out["at_two"]
    assert out["after"] == out["at_two"]
    assert out["still_at_four"] == [[2, "B"], [2, "B"], [3, None]]
    assert out["restore"] == [2, 3, 2]  # back: (1, a) and (2, b) twice; away: (2, B) twice
    assert out["history"] == [[5, "RESTORE", "2"], [4, "UPDATE", None], [3, "DELETE", None], [2, "WRITE", None],
                              [1, "WRITE", None], [0, "CREATE TABLE", None]]
    assert out["user"] and out["engine"].startswith("sparkpersist/")
