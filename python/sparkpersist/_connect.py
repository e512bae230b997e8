"""The Python API over Spark Connect: SQL instead of py4j.

A Spark Connect session has no JVM gateway, so each function of the package that has a SQL form
runs it: writes through ``CALL persist.system.write`` (over a temporary view of the DataFrame),
the lifecycle through ``CALL persist.system.<procedure>``, the scan reports through
``CALL persist.system.last_scans()``. The results have the shapes of the classic functions.
"""
from __future__ import annotations

import re
import uuid
from typing import Any, Optional, Sequence

from pyspark.sql import DataFrame, SparkSession

from .errors import ShardNotFoundError, translated_errors


def quote(name: str) -> str:
    """``name`` as one SQL identifier."""
    return "`" + name.replace("`", "``") + "`"


def table(shard: str, view: Optional[str] = None) -> str:
    """The SQL name of ``shard``'s table (or of one of its views, e.g. ``updates``).

    ``shard`` is a name (``events``, ``sales.orders`` in the namespace ``sales``) or a location
    (``/data/t``, ``s3a://bucket/t``), which is one quoted identifier: ``persist.`/data/t```.
    """
    parts = [shard] if _is_location(shard) else shard.split(".")
    return ".".join(["persist"] + [quote(p) for p in parts] + ([view] if view else []))


def _is_location(shard: str) -> bool:
    """True for an absolute path or a URI, as the JVM's ``ShardStore.isLocation`` decides."""
    return shard.startswith("/") or re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", shard) is not None


def _literal(value: Any) -> str:
    """``value`` as a SQL literal: a list or tuple of names as ``ARRAY<STRING>`` (typed even when empty)."""
    if isinstance(value, (list, tuple)):
        return f"CAST(array({', '.join(_literal(str(v)) for v in value)}) AS ARRAY<STRING>)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value}L"
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def call(spark: SparkSession, procedure: str, **args: Any) -> list[dict[str, Any]]:
    """``CALL persist.system.<procedure>(name => value, ...)`` (``None`` arguments left out), as dicts.

    The JVM's errors are raised as the package's own by their error condition (e.g.
    :class:`UpperMismatchError` for ``PERSIST_UPPER_MISMATCH``), as in a classic session.
    """
    given = ", ".join(f"{k} => {_literal(v)}" for k, v in args.items() if v is not None)
    with translated_errors():
        return [row.asDict(recursive=True) for row in spark.sql(f"CALL persist.system.{procedure}({given})").collect()]


def _require(spark: SparkSession, shard: str) -> None:
    if not spark.catalog.tableExists(table(shard)):
        raise ShardNotFoundError(f"No shard '{shard}' under the session's root: write to it or CREATE TABLE it first.")


def shards(spark: SparkSession) -> list[str]:
    return sorted(row["tableName"] for row in spark.sql("SHOW TABLES IN persist").collect())


def parts(spark: SparkSession, shard: str) -> DataFrame:
    _require(spark, shard)
    return spark.table(table(shard, "parts"))


def last_scans(spark: SparkSession) -> list[dict[str, Any]]:
    return call(spark, "last_scans")


def property_columns(spark: SparkSession, shard: str, key: str) -> list[str]:
    """The columns the comma-separated table property ``key`` of ``shard`` names (none when it is unset)."""
    value = spark.sql(f"SHOW TBLPROPERTIES {table(shard)} ({_literal(key)})").collect()
    shown = str(value[0]["value"]) if value else ""
    return [c for c in shown.split(",") if c and not shown.startswith("Table ")]


def set_index_columns(spark: SparkSession, shard: str, columns: Optional[Sequence[str]]) -> list[str]:
    _require(spark, shard)
    key = "'sparkpersist.indexColumns'"
    if columns:
        spark.sql(f"ALTER TABLE {table(shard)} SET TBLPROPERTIES ({key} = {_literal(','.join(columns))})")
    else:
        spark.sql(f"ALTER TABLE {table(shard)} UNSET TBLPROPERTIES IF EXISTS ({key})")
    return property_columns(spark, shard, "sparkpersist.indexColumns")


def set_cluster_by(spark: SparkSession, shard: str, columns: Optional[Sequence[str]]) -> list[str]:
    """:func:`sparkpersist.set_cluster_by`, in SQL: the same in classic and Spark Connect sessions."""
    _require(spark, shard)
    spec = f"({', '.join(quote(c) for c in columns)})" if columns else "NONE"
    spark.sql(f"ALTER TABLE {table(shard)} CLUSTER BY {spec}")
    return property_columns(spark, shard, "sparkpersist.clusterBy")


def write(df: DataFrame, shard: str, *, time_col: Optional[str], diff_col: Optional[str],
          max_rows_per_part: Optional[int], order_by: Optional[Sequence[str]],
          json_columns: Optional[Sequence[str]], keep_stats: Optional[Sequence[str]],
          index_columns: Optional[Sequence[str]], merge_schema: bool,
          cluster_by: Optional[Sequence[str]] = None) -> dict[str, int | str]:
    """:func:`sparkpersist.write` over Spark Connect; returns the batch's fields.

    The JVM does the whole write, as for a classic session: ``df`` becomes a temporary view of the
    server session under a name of its own (so that concurrent writes from one client never meet),
    and ``CALL persist.system.write`` commits it and returns the batch that commit made. Its time,
    when the rows have none, is the JVM's commit time; the batch is this write's own whatever other
    writers commit meanwhile.
    """
    spark = df.sparkSession
    view = f"sparkpersist_write_{uuid.uuid4().hex}"
    df.createTempView(view)
    try:
        [batch] = call(spark, "write", shard=shard, source=view, time_col=time_col, diff_col=diff_col,
                       max_rows_per_part=max_rows_per_part, order_by=order_by, json_columns=json_columns,
                       keep_stats=keep_stats, index_columns=index_columns, merge_schema=merge_schema or None,
                       cluster_by=cluster_by)
    finally:
        spark.catalog.dropTempView(view)
    return {"id": batch["batch_id"], "lower": int(batch["lower"]), "upper": int(batch["upper"]),
            "parts": int(batch["parts"]), "rows": int(batch["rows"])}
