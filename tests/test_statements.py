"""A data engineer's statements on one shard, on whichever Spark line the installed pyspark is:
CREATE, INSERT, a ``mz_now()`` window, DELETE, UPDATE, MERGE, ``VERSION AS OF``, ``CALL compact``,
a streaming append and a join with a runtime filter. After each statement the shard's rows are
compared with plain Spark over a Parquet copy of the same rows written by Spark (the statement's
effect applied to the copy with plain SQL, read with Spark's Parquet filter pushdown off), in the
run's pushdown mode and with pushdown off. ``make test`` runs this file on every supported line,
in pushdown on and in soft mode failing on any violation."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Iterator

import pytest
from pyspark.sql import SparkSession

import sparkpersist

DAY_MS = 86_400_000
HOUR_MS = 3_600_000
COLUMNS = "k, g, v, ts"
SCHEMA = "k BIGINT, g STRING, v DOUBLE, ts TIMESTAMP"


class Oracle:
    """The shard's expected rows as a plain Parquet directory per step, written and read by Spark."""

    def __init__(self, spark: SparkSession, where: Path) -> None:
        self.spark, self.where, self.step = spark, where, 0

    @property
    def view(self) -> str:
        return f"oracle_step_{self.step}"

    def replace(self, query: str) -> None:
        """Writes the rows of ``query`` (over the current copy, ``{o}``) as the next copy."""
        rows = self.spark.sql(query.format(o=self.view) if self.step else query)
        self.step += 1
        path = str(self.where / f"step_{self.step}")
        rows.write.parquet(path)
        self.spark.read.parquet(path).createOrReplaceTempView(self.view)


@pytest.fixture
def plain_parquet(spark: SparkSession, session_conf) -> Iterator[None]:
    # Spark's Parquet filter pushdown drops -0.0 for `v = 0.0`: the copy is read without it.
    with session_conf("spark.sql.parquet.filterPushdown", "false"):
        yield


def _mode(spark: SparkSession) -> str:
    return spark.conf.get("spark.sparkpersist.pushdown.mode", "on")


def _rows(spark: SparkSession, query: str) -> list[tuple]:
    return sorted((tuple(r) for r in spark.sql(query).collect()), key=repr)


def _agree(spark: SparkSession, session_conf: Callable, shard_query: str, oracle_query: str) -> dict:
    """The shard query's rows equal the oracle query's in the run's mode and with pushdown off;
    returns what the scan read in the run's mode."""
    expected = _rows(spark, oracle_query)
    assert _rows(spark, shard_query) == expected, shard_query
    [scan] = sparkpersist.last_scans(spark)
    assert scan["soft_violations"] == 0
    with session_conf("spark.sparkpersist.pushdown.mode", "off"):
        assert _rows(spark, shard_query) == expected, f"off: {shard_query}"
    return scan


def _batch(first: int, count: int, days_ago: int, now_ms: int) -> str:
    """A VALUES list of ``count`` rows from key ``first``: ts ``days_ago`` days and 12 hours before
    ``now_ms``, ten minutes apart; v has a null and a -0.0; g cycles a, b, c (and one null)."""
    values = []
    for k in range(first, first + count):
        ts = now_ms - days_ago * DAY_MS - 12 * HOUR_MS + (k - first) * 600_000
        g = "NULL" if k % 17 == 5 else f"'{'abc'[k % 3]}'"
        v = "NULL" if k % 13 == 4 else ("-0.0D" if k % 13 == 6 else f"{k * 1.5}D")
        values.append(f"({k}L, {g}, {v}, timestamp_millis({ts}L))")
    return ", ".join(values)


def test_statements_agree_with_plain_spark(spark: SparkSession, shard_name: str, tmp_path: Path,
                                           session_conf, plain_parquet) -> None:
    shard = f"persist.{shard_name}"
    oracle = Oracle(spark, tmp_path)
    now_ms = int(time.time() * 1000)

    # CREATE, and five INSERTs: one batch each, keys in disjoint ranges, a day of event time apart.
    spark.sql(f"CREATE TABLE {shard} ({SCHEMA}) TBLPROPERTIES ('order_by' = 'k')")
    inserts = [_batch(100 * b, 40, 4 - b, now_ms) for b in range(5)]
    for b, values in enumerate(inserts):
        spark.sql(f"INSERT INTO {shard} VALUES {values}")
        oracle.replace(f"SELECT * FROM VALUES {values} AS t({COLUMNS})" if b == 0 else
                       f"SELECT * FROM {{o}} UNION ALL SELECT * FROM VALUES {values} AS t({COLUMNS})")
        if b == 1:
            after_two = oracle.view
    _agree(spark, session_conf, f"SELECT * FROM {shard}", f"SELECT * FROM {oracle.view}")

    # A mz_now() window: the shard's latest complete time, the last batch's commit time (~ now).
    upper = spark.sql(f"SELECT max(upper) FROM {shard}.batches").collect()[0][0]
    window = "mz_now() <= ts + INTERVAL 2 DAYS"
    scan = _agree(spark, session_conf, f"SELECT * FROM {shard} WHERE {window}",
                  f"SELECT * FROM {oracle.view} WHERE {window.replace('mz_now()', f'timestamp_millis({upper - 1}L)')}")
    assert scan["parts_total"] >= 5
    if _mode(spark) == "on":
        assert 0 < scan["parts_read"] < scan["parts_total"], scan

    # DELETE, UPDATE, MERGE: Spark's row-level operations on the shard, the same effect on the copy.
    delete = "g = 'c' AND k % 2 = 0"
    spark.sql(f"DELETE FROM {shard} WHERE {delete}")
    oracle.replace(f"SELECT * FROM {{o}} WHERE NOT coalesce({delete}, false)")
    _agree(spark, session_conf, f"SELECT * FROM {shard}", f"SELECT * FROM {oracle.view}")

    update = "k < 150 OR v IS NULL"
    spark.sql(f"UPDATE {shard} SET v = coalesce(v, 0) * 2 + 1, g = upper(g) WHERE {update}")
    oracle.replace(f"SELECT k, CASE WHEN coalesce({update}, false) THEN upper(g) ELSE g END AS g, "
                   f"CASE WHEN coalesce({update}, false) THEN coalesce(v, 0) * 2 + 1 ELSE v END AS v, ts FROM {{o}}")
    _agree(spark, session_conf, f"SELECT * FROM {shard}", f"SELECT * FROM {oracle.view}")

    spark.sql(f"SELECT k, g, v, op, timestamp_millis({now_ms}L) AS ts FROM VALUES (3L, 'd', -1.0D, 'd'), "
              "(101L, 'x', 7.0D, 'u'), (203L, 'y', 8.0D, 'u'), (999L, 'z', 9.0D, 'u') AS s(k, g, v, op)"
              ).createOrReplaceTempView("statement_changes")
    spark.sql(f"""MERGE INTO {shard} t USING statement_changes s ON t.k = s.k
                  WHEN MATCHED AND s.op = 'd' THEN DELETE
                  WHEN MATCHED THEN UPDATE SET v = s.v, g = s.g
                  WHEN NOT MATCHED THEN INSERT (k, g, v, ts) VALUES (s.k, s.g, s.v, s.ts)""")
    oracle.replace("SELECT o.k, o.g, o.v, o.ts FROM {o} o LEFT ANTI JOIN statement_changes s ON o.k = s.k "
                   "UNION ALL SELECT o.k, s.g, s.v, o.ts FROM {o} o JOIN statement_changes s ON o.k = s.k "
                   "WHERE s.op <> 'd' "
                   "UNION ALL SELECT s.k, s.g, s.v, s.ts FROM statement_changes s LEFT ANTI JOIN {o} o ON s.k = o.k")
    _agree(spark, session_conf, f"SELECT * FROM {shard}", f"SELECT * FROM {oracle.view}")

    # VERSION AS OF: version 0 is the CREATE, each INSERT one more.
    _agree(spark, session_conf, f"SELECT * FROM {shard} VERSION AS OF 2", f"SELECT * FROM {after_two}")

    # A streaming append: a file stream of Parquet rows into the shard, run to what is available.
    incoming = tmp_path / "incoming"
    values = _batch(500, 30, 0, now_ms)
    spark.sql(f"SELECT * FROM VALUES {values} AS t({COLUMNS})").write.parquet(str(incoming))
    query = (spark.readStream.schema(SCHEMA).parquet(str(incoming))
             .writeStream.option("checkpointLocation", str(tmp_path / "checkpoint"))
             .trigger(availableNow=True).toTable(shard))
    query.awaitTermination(120)
    assert not query.isActive and query.exception() is None
    oracle.replace(f"SELECT * FROM {{o}} UNION ALL SELECT * FROM VALUES {values} AS t({COLUMNS})")
    _agree(spark, session_conf, f"SELECT * FROM {shard}", f"SELECT * FROM {oracle.view}")

    # A join whose runtime filter (from the selective side) narrows the shard's parts.
    spark.range(100).selectExpr("id * 3 AS k", "CASE WHEN id IN (68, 70) THEN 'wanted' ELSE 'other' END AS tag"
                                ).createOrReplaceTempView("statement_keys")
    join = "SELECT f.k, f.g, f.v, f.ts FROM {t} f JOIN statement_keys d ON f.k = d.k WHERE d.tag = 'wanted'"
    with session_conf("spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly", "false"):
        scan = _agree(spark, session_conf, join.format(t=shard), join.format(t=oracle.view))
    if _mode(spark) == "on":
        assert scan["parts_runtime_pruned"] > 0, scan

    # CALL compact: the same rows after it.
    spark.sql(f"CALL persist.system.compact(shard => '{shard_name}')").collect()
    _agree(spark, session_conf, f"SELECT * FROM {shard}", f"SELECT * FROM {oracle.view}")
