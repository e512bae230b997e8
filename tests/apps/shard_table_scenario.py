"""Every ``ShardTable`` method on one shard, beside plain Spark over a Parquet copy of the same rows.

``run(spark, shard, workdir)`` works on a classic session and over Spark Connect (SQL strings only
there; a classic session also passes Columns): after each statement it records the shard's rows
and the oracle's, the statement's effect applied to the copy with plain SQL and read with Spark's
Parquet filter pushdown off. ``tests/test_shard_table.py`` checks the record; run as
``python shard_table_scenario.py sc://host:port <workdir>`` it prints it as JSON for a Connect client.
"""
from __future__ import annotations

import json
import sys
import traceback
from typing import Any, Callable

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sparkpersist
from sparkpersist import ShardTable

COLUMNS = "id INT, bal DOUBLE, tag STRING"
ROWS = [(1, 10.0, "a"), (2, 20.0, "b"), (2, 20.0, "b"), (3, None, None), (None, 5.0, "n"), (4, 40.0, "d")]
SOURCE = [(1, 11.0, "u"), (2, -1.0, "d"), (5, 50.0, "i"), (6, 60.0, "skip"), (4, 41.0, "w")]


def rows(df: Any) -> list[list]:
    return sorted((list(r) for r in df.collect()), key=repr)


def run(spark: SparkSession, shard: str, workdir: str) -> dict[str, Any]:
    """Runs every method on ``shard`` (created here) and returns, per step, what it gave and what it should."""
    classic = not type(spark).__module__.startswith("pyspark.sql.connect")
    out: dict[str, Any] = {"classic": classic, "steps": {}}
    copies = [0]
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")

    def oracle(query: str) -> None:
        """Replaces the oracle's copy by the rows of ``query`` over the current copy, ``o``."""
        copies[0] += 1
        path = f"{workdir}/{shard}_oracle_{copies[0]}"
        spark.sql(query).write.parquet(path)
        spark.read.parquet(path).createOrReplaceTempView("o")

    def step(name: str, action: Callable[[], Any], expected: str | None = None) -> None:
        """Runs ``action``; records the shard's rows after it and the oracle's after ``expected``."""
        try:
            action()
            if expected is not None:
                oracle(expected)
            out["steps"][name] = {"shard": rows(spark.table(f"persist.{shard}")), "oracle": rows(spark.table("o"))}
        except Exception as e:  # recorded, so that one missing feature does not hide the other steps
            out["steps"][name] = {"error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc()[-2000:]}

    spark.sql(f"CREATE TABLE persist.{shard} ({COLUMNS})")
    spark.createDataFrame(ROWS, COLUMNS).writeTo(f"persist.{shard}").append()
    oracle(f"SELECT * FROM VALUES {', '.join(_values(r) for r in ROWS)} AS v(id, bal, tag)")
    table = ShardTable.forName(spark, shard)
    out["is_shard"] = [ShardTable.isShardTable(spark, shard), ShardTable.isShardTable(spark, f"persist.{shard}"),
                       ShardTable.isShardTable(spark, shard + "_none")]
    out["toDF"] = {"shard": rows(table.toDF()), "oracle": rows(spark.table("o"))}
    out["alias"] = rows(table.alias("x").toDF().where("x.id = 2").select("x.tag"))
    first_rows = rows(spark.table(f"persist.{shard}"))
    first_time = spark.sql(f"SELECT CAST(timestamp_millis(max(upper) - 1) AS STRING) FROM persist.{shard}.batches") \
        .collect()[0][0]  # the first version's latest complete time, in the session's time zone
    try:  # the version to restore later: the newest commit's, as history() names it
        first_version = table.history(1).collect()[0]["version"]
    except Exception:
        first_version = None

    step("delete", lambda: table.delete("id = 2"), "SELECT * FROM o WHERE NOT coalesce(id = 2, false)")
    step("update", lambda: table.update("bal IS NULL", {"bal": "31.0", "tag": "'was null'"}),
         "SELECT id, CASE WHEN bal IS NULL THEN 31.0 ELSE bal END AS bal, "
         "CASE WHEN bal IS NULL THEN 'was null' ELSE tag END AS tag FROM o")
    step("update_all_rows", lambda: table.update(set={"bal": "bal * 2"}), "SELECT id, bal * 2 AS bal, tag FROM o")
    spark.createDataFrame(SOURCE, COLUMNS).createOrReplaceTempView("s")
    step("merge", lambda: (
        table.alias("t").merge(spark.table("s").alias("s"), "t.id = s.id")
        .whenMatchedDelete("s.tag = 'd'")
        .whenMatched().update({"bal": "s.bal", "tag": "s.tag"})
        .whenNotMatched("s.tag = 'i'").insert({"id": "s.id", "tag": "'inserted'"})
        .whenNotMatched("s.tag <> 'skip'").insertAll()
        .whenNotMatchedBySource("t.bal > 30").update({"tag": "'stale'"})
        .whenNotMatchedBySourceDelete("t.id IS NULL")
        .execute()),
        # The first clause whose condition holds applies; source ids are unique.
        "SELECT t.id, s.bal, s.tag FROM o t JOIN s ON t.id = s.id WHERE NOT s.tag = 'd' "
        "UNION ALL SELECT s.id, CAST(NULL AS DOUBLE), 'inserted' FROM s LEFT ANTI JOIN o t ON t.id = s.id "
        "WHERE s.tag = 'i' "
        "UNION ALL SELECT s.* FROM s LEFT ANTI JOIN o t ON t.id = s.id WHERE s.tag NOT IN ('i', 'skip') "
        "UNION ALL SELECT t.id, t.bal, CASE WHEN t.bal > 30 THEN 'stale' ELSE t.tag END "
        "FROM o t LEFT ANTI JOIN s ON t.id = s.id WHERE coalesce(t.bal > 30, false) OR t.id IS NOT NULL")
    step("merge_update_all", lambda: (
        table.merge(spark.table("s").alias("src"), f"persist.{shard}.id = src.id")
        .whenMatchedUpdateAll("src.tag <> 'd'").whenNotMatchedInsertAll("src.tag = 'skip'").execute()),
        "SELECT coalesce(s.id, t.id) AS id, CASE WHEN s.id IS NOT NULL THEN s.bal ELSE t.bal END AS bal, "
        "CASE WHEN s.id IS NOT NULL THEN s.tag ELSE t.tag END AS tag "
        "FROM o t LEFT JOIN (SELECT * FROM s WHERE tag <> 'd') s ON t.id = s.id "
        "UNION ALL SELECT s.* FROM s LEFT ANTI JOIN o t ON t.id = s.id WHERE s.tag = 'skip'")
    if classic:  # Columns: the JVM takes them as they are
        step("delete_column", lambda: table.delete(F.col("tag") == "stale"),
             "SELECT * FROM o WHERE NOT coalesce(tag = 'stale', false)")
        step("update_column", lambda: table.update(F.col("id") >= 5, {"tag": F.upper(F.col("tag"))}),
             "SELECT id, bal, CASE WHEN id >= 5 THEN upper(tag) ELSE tag END AS tag FROM o")
    else:  # over Connect a Column cannot become the statement's SQL: a clear error
        out["connect_column"] = _refusal(lambda: table.delete(F.col("id") == 1))
        out["connect_column_alias"] = _refusal(lambda: table.alias("t").merge(
            spark.table("s").alias("s"), F.col("t.id") == F.col("s.id")).whenMatchedDelete().execute())
    target = f"persist.{shard}"
    step("merge_column", lambda: (  # over Connect: DataFrame.mergeInto, the Columns as they are
        table.merge(spark.table("s").where("id <> 6").alias("s"), F.col(f"{target}.id") == F.col("s.id"))
        .whenMatched(F.col("s.tag") == "u").update({"bal": F.lit(-7.0)})
        .whenNotMatchedBySource(F.col(f"{target}.id") == 6).delete()
        .execute()),
        "SELECT t.id, CASE WHEN s.tag = 'u' THEN -7.0 ELSE t.bal END AS bal, t.tag "
        "FROM o t LEFT JOIN (SELECT * FROM s WHERE id <> 6) s ON t.id = s.id "
        "WHERE NOT (s.id IS NULL AND coalesce(t.id = 6, false))")
    out["parts"] = [table.parts().count(), spark.table(f"persist.{shard}.parts").count()]
    out["batches"] = {"shard": rows(table.batches()), "sql": rows(spark.table(f"persist.{shard}.batches"))}
    detail = table.detail()
    out["detail"] = {"columns": detail.columns, "row": [str(v) for v in detail.collect()[0]]}
    since = spark.sql(f"SELECT max(lower) FROM persist.{shard}.batches").collect()[0][0]
    out["updates"] = {"shard": rows(table.updates(since=since)),
                      "sql": rows(spark.sql(f"SELECT * FROM persist.{shard}.updates WHERE time >= {since}")),
                      "all": [table.updates().count(), spark.table(f"persist.{shard}.updates").count()]}
    # History and restores before gc, which deletes the versions they name.
    try:
        history = table.history()
        out["history"] = {"operations": [r["operation"] for r in history.collect()],
                          "versions": [r["version"] for r in history.collect()],
                          "limited": [r["version"] for r in table.history(2).collect()]}
    except Exception as e:
        out["history"] = {"error": f"{type(e).__name__}: {e}"}
    try:
        if first_version is None:
            raise RuntimeError("history() gave no version to restore")
        at_version = rows(spark.sql(f"SELECT * FROM persist.{shard} VERSION AS OF {first_version}"))
        table.restoreToVersion(first_version)
        out["restore"] = {"restored": rows(spark.table(f"persist.{shard}")), "first": first_rows,
                          "version_as_of": at_version}
        table.delete()
        out["restore"]["deleted"] = rows(spark.table(f"persist.{shard}"))
        out["restore"]["timestamp_as_of"] = rows(spark.sql(f"SELECT * FROM persist.{shard} TIMESTAMP AS OF '{first_time}'"))
        table.restoreToTimestamp(first_time)
        out["restore"]["restored_to_timestamp"] = rows(spark.table(f"persist.{shard}"))
    except Exception as e:
        out["restore"] = {"error": f"{type(e).__name__}: {e}"}
    before_compact = rows(spark.table(f"persist.{shard}"))
    compacted = table.compact(fan_in=2)
    out["compact"] = {"batches_before": compacted["batches_before"], "batches_after": compacted["batches_after"],
                      "rows_after": rows(spark.table(f"persist.{shard}")), "rows_before": before_compact}
    out["gc"] = table.gc(keep_versions=1, grace_ms=0)
    out["vacuum"] = table.vacuum(0)
    out["after_gc"] = rows(spark.table(f"persist.{shard}"))
    out["for_path"] = _for_path(spark, f"{workdir}/{shard}_at_path")
    return out


def _for_path(spark: SparkSession, path: str) -> dict[str, Any]:
    """A shard stored at ``path``, held by ``forPath``: a delete and an update, and what SQL reads after."""
    try:
        spark.sql(f"CREATE TABLE persist.`{path}` (id INT, tag STRING)")
        spark.sql(f"INSERT INTO persist.`{path}` VALUES (1, 'a'), (2, 'b'), (2, 'b')")
        table = ShardTable.forPath(spark, path)
        table.delete("id = 1")
        table.update("id = 2", {"tag": "'B'"})
        return {"is_shard": ShardTable.isShardTable(spark, path), "rows": rows(table.toDF()),
                "sql": rows(spark.sql(f"SELECT * FROM persist.`{path}`"))}
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}


def _refusal(action: Callable[[], Any]) -> str:
    try:
        action()
        return "accepted"
    except sparkpersist.ConnectNotSupportedError as e:
        return str(e)


def _values(row: tuple) -> str:
    def one(v: Any) -> str:
        return "NULL" if v is None else (f"'{v}'" if isinstance(v, str) else repr(v))
    return "(" + ", ".join(["CAST(" + one(row[0]) + " AS INT)", "CAST(" + one(row[1]) + " AS DOUBLE)",
                            "CAST(" + one(row[2]) + " AS STRING)"]) + ")"


if __name__ == "__main__":
    session = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
    print(json.dumps(run(session, "shard_table", sys.argv[2]), default=str))
    session.stop()
