"""Writers over Spark Connect that race: run as ``python connect_writers.py sc://host:port``.

Prints one JSON object; ``tests/test_connect.py`` checks that every ``sparkpersist.write`` returned
the batch holding exactly its own rows. Two races:

- ``concurrent``: writers in threads of one client, started together, each retrying when another
  committed first (``UpperMismatchError``, nothing written), as the error says to.
- ``interleaved``: another writer commits right before and right after every SQL statement the
  writing client sends, the moments a client that works out its batch (or its commit time) from
  the shard's state in separate statements gets them wrong. Deterministic, unlike the threads.
"""
from __future__ import annotations

import json
import sys
import threading
from dataclasses import asdict
from typing import Any, Callable

from pyspark.sql import DataFrame, SparkSession

import sparkpersist

WRITERS = 4
ROWS = 30


def contents(spark: SparkSession, shard: str) -> list[list[Any]]:
    """Every update of ``shard`` as [writer, time]."""
    return [[r["writer"], r["time"]] for r in spark.sql(f"SELECT writer, time FROM persist.{shard}.updates").collect()]


def batches(spark: SparkSession, shard: str) -> list[dict[str, Any]]:
    return [r.asDict() for r in spark.sql(f"SELECT batch_id, lower, upper, row_count FROM persist.{shard}.batches").collect()]


def rows(spark: SparkSession, writer: str) -> DataFrame:
    return spark.range(ROWS).selectExpr(f"'{writer}' AS writer", "id AS n")


def concurrent(spark: SparkSession) -> dict[str, Any]:
    spark.sql("CREATE TABLE persist.race (writer STRING, n BIGINT)")
    start = threading.Barrier(WRITERS)
    written: dict[str, Any] = {}
    failed: list[str] = []

    def write(writer: str) -> None:
        start.wait()
        lost = 0
        try:
            while True:
                try:
                    batch = sparkpersist.write(rows(spark, writer), "race")
                    break
                except sparkpersist.UpperMismatchError:
                    lost += 1
            written[writer] = {"batch": asdict(batch), "lost": lost}
        except Exception as e:  # reported, so that the test shows it
            failed.append(f"{writer}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=write, args=(f"w{i}",)) for i in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"written": written, "failed": failed, "batches": batches(spark, "race"), "updates": contents(spark, "race")}


def intruding(spark: SparkSession, intrude: Callable[[], None]) -> Callable[..., DataFrame]:
    """``spark.sql`` that runs ``intrude`` before and after each statement (not around its own).

    A query runs when its result is read, so each statement's result is read at once (an eager
    local checkpoint), between the two intrusions: the intrusions then fall between statements.
    """
    sql = spark.sql
    busy = threading.local()

    def run(query: str, *args: Any, **kwargs: Any) -> DataFrame:
        if getattr(busy, "on", False):
            return sql(query, *args, **kwargs)
        busy.on = True
        try:
            intrude()
            result = sql(query, *args, **kwargs).localCheckpoint()
            intrude()
            return result
        finally:
            busy.on = False
    return run


def interleaved(spark: SparkSession) -> dict[str, Any]:
    spark.sql("CREATE TABLE persist.interleaved (writer STRING, n BIGINT)")

    def intrude() -> None:
        # Another writer's updates a minute past both the upper and now: a later commit time must be above them.
        time = spark.sql("SELECT greatest(coalesce(max(upper), 0), unix_millis(current_timestamp())) + 60000 "
                         "FROM persist.interleaved.batches").collect()[0][0]
        spark.sql(f"INSERT INTO persist.interleaved.updates VALUES ('intruder', 0L, {time}L, 1L)")

    writes = {"append": lambda: sparkpersist.write(rows(spark, "append"), "interleaved"),
              # Diffs without times: each row's time is the commit time, as for an append.
              "update": lambda: sparkpersist.write(rows(spark, "update").selectExpr("*", "1L AS d"), "interleaved",
                                                   diff_col="d")}
    written: dict[str, Any] = {}
    failed: list[str] = []
    spark.sql = intruding(spark, intrude)  # type: ignore[method-assign]
    try:
        for writer, write in writes.items():
            try:
                written[writer] = {"batch": asdict(write())}
            except Exception as e:  # reported, so that the test shows it
                failed.append(f"{writer}: {type(e).__name__}: {e}")
    finally:
        del spark.sql
    return {"written": written, "failed": failed, "batches": batches(spark, "interleaved"),
            "updates": contents(spark, "interleaved")}


def main(url: str) -> None:
    spark = SparkSession.builder.remote(url).getOrCreate()
    print(json.dumps({"rows_each": ROWS, "concurrent": concurrent(spark), "interleaved": interleaved(spark)}))
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])
