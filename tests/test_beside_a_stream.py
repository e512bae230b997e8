"""DELETE, UPDATE, MERGE and INSERT OVERWRITE while a stream appends to the same shard every few
hundred milliseconds: each statement commits on its own (after the micro-batches that landed while
it ran, without failing), the stream keeps running, and the rows equal plain Spark over a Parquet
copy the statements are applied to, plus exactly the rows the stream generated."""
from __future__ import annotations

import time
from pathlib import Path

from pyspark.sql import SparkSession

STREAM_FROM = 1_000_000
STATEMENTS = [
    "DELETE FROM {t} WHERE k < 20",
    "UPDATE {t} SET g = 'u' WHERE k >= 20 AND k < 60",
    "MERGE INTO {t} t USING (SELECT id AS k FROM range(60, 80) UNION ALL SELECT id AS k FROM range(5000, 5010)) s "
    "ON t.k = s.k WHEN MATCHED THEN UPDATE SET g = 'm' WHEN NOT MATCHED THEN INSERT (k, g) VALUES (s.k, 'new')",
    "DELETE FROM {t} WHERE k >= 100 AND k < 110",
]


def _rows(spark: SparkSession, query: str) -> list[tuple]:
    return sorted((tuple(r) for r in spark.sql(query).collect()), key=repr)


def _wait_for(condition, what: str, timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


class ParquetCopy:
    """The shard's expected rows as a plain Parquet directory per step, written and read by Spark
    (read with its Parquet filter pushdown off, which drops -0.0 for ``v = 0.0``)."""

    def __init__(self, spark: SparkSession, where: Path, first: str) -> None:
        self.spark, self.where, self.step = spark, where, 0
        self.replace(first)

    def replace(self, query: str) -> None:
        """Writes the rows of ``query`` (over the current copy, ``{o}``) as the next copy."""
        rows = self.spark.sql(query.format(o=f"copy_{self.step}"))
        self.step += 1
        path = str(self.where / f"step_{self.step}")
        rows.write.parquet(path)
        self.spark.read.parquet(path).createOrReplaceTempView(f"copy_{self.step}")

    def rows(self, session_conf) -> list[tuple]:
        with session_conf("spark.sql.parquet.filterPushdown", "false"):
            return _rows(self.spark, f"SELECT k, g FROM copy_{self.step}")


# Each statement's effect on the copy, by plain SQL (plain Parquet has no row-level operations).
ON_THE_COPY = [
    "SELECT * FROM {o} WHERE NOT (k < 20)",
    "SELECT k, CASE WHEN k >= 20 AND k < 60 THEN 'u' ELSE g END AS g FROM {o}",
    "SELECT k, CASE WHEN k >= 60 AND k < 80 THEN 'm' ELSE g END AS g FROM {o} "
    "UNION ALL SELECT id AS k, 'new' AS g FROM range(5000, 5010)",
    "SELECT * FROM {o} WHERE NOT (k >= 100 AND k < 110)",
]


def test_statements_commit_beside_a_stream_and_the_stream_keeps_running(
        spark: SparkSession, shard_name: str, tmp_path: Path, session_conf) -> None:
    table = f"persist.{shard_name}"
    spark.sql(f"CREATE TABLE {table} (k BIGINT, g STRING)")
    spark.sql(f"INSERT INTO {table} SELECT id, 'base' FROM range(200)")
    copy = ParquetCopy(spark, tmp_path / "copy", "SELECT id AS k, 'base' AS g FROM range(200)")

    stream = (spark.readStream.format("rate").option("rowsPerSecond", 40).load()
              .selectExpr(f"value + {STREAM_FROM} AS k", "'s' AS g")
              .writeStream.option("checkpointLocation", str(tmp_path / "checkpoint"))
              .trigger(processingTime="300 milliseconds").toTable(table))
    try:
        _wait_for(lambda: len(stream.recentProgress) >= 2, "two micro-batches")
        for statement, on_the_copy in zip(STATEMENTS, ON_THE_COPY):
            spark.sql(statement.format(t=table))  # raises ConcurrentShardUpdate if it did not commit
            copy.replace(on_the_copy)
        _wait_for(lambda: len(stream.recentProgress) >= 6, "micro-batches after the statements")
        assert stream.isActive and stream.exception() is None
    finally:
        stream.stop()
    assert stream.exception() is None

    statements = _rows(spark, f"SELECT operation, read_upper < lower FROM {table}.batches "
                              "WHERE operation IN ('DELETE', 'UPDATE', 'MERGE')")
    assert sorted(op for op, _ in statements) == ["DELETE", "DELETE", "MERGE", "UPDATE"]
    print(f"statements that committed after micro-batches that landed while they ran: "
          f"{sum(1 for _, rebased in statements if rebased)} of {len(statements)}")

    keys = sorted(r.k for r in spark.sql(f"SELECT k FROM {table} WHERE k >= {STREAM_FROM}").collect())
    assert keys and keys == list(range(STREAM_FROM, STREAM_FROM + len(keys))), "each generated row once, none lost"
    assert _rows(spark, f"SELECT DISTINCT g FROM {table} WHERE k >= {STREAM_FROM}") == [("s",)]
    assert _rows(spark, f"SELECT k, g FROM {table} WHERE k < {STREAM_FROM}") == copy.rows(session_conf)
