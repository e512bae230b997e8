"""The Python API over Spark Connect: SQL and DataFrameWriterV2 instead of py4j.

A Spark Connect session has no JVM gateway, so each function of the package that has a SQL form
runs it: writes go through ``df.writeTo(...)`` (updates through the shard's ``.updates`` table),
the lifecycle through ``CALL persist.system.<procedure>``, the scan reports through
``CALL persist.system.last_scans()``. The results have the shapes of the classic functions.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import TimestampNTZType, TimestampType

from .errors import ConnectNotSupportedError, InvalidInputError, ShardNotFoundError


def quote(name: str) -> str:
    """``name`` as one SQL identifier."""
    return "`" + name.replace("`", "``") + "`"


def table(shard: str, view: Optional[str] = None) -> str:
    """The SQL name of ``shard``'s table (or of one of its views, e.g. ``updates``)."""
    return ".".join(["persist", quote(shard)] + ([view] if view else []))


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value}L"
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def call(spark: SparkSession, procedure: str, **args: Any) -> list[dict[str, Any]]:
    """``CALL persist.system.<procedure>(name => value, ...)`` (``None`` arguments left out), as dicts."""
    given = ", ".join(f"{k} => {_literal(v)}" for k, v in args.items() if v is not None)
    return [row.asDict(recursive=True) for row in spark.sql(f"CALL persist.system.{procedure}({given})").collect()]


def _require(spark: SparkSession, shard: str) -> None:
    if not spark.catalog.tableExists(f"persist.{quote(shard)}"):
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


def _upper(spark: SparkSession, shard: str) -> int:
    row = spark.sql(f"SELECT max(upper) AS upper FROM {table(shard, 'batches')}").collect()[0]
    return int(row["upper"] or 0)


def write(df: DataFrame, shard: str, *, time_col: Optional[str], diff_col: Optional[str],
          max_rows_per_part: Optional[int], order_by: Optional[Sequence[str]],
          json_columns: Optional[Sequence[str]], keep_stats: Optional[Sequence[str]],
          index_columns: Optional[Sequence[str]], merge_schema: bool,
          cluster_by: Optional[Sequence[str]] = None) -> dict[str, int | str]:
    """:func:`sparkpersist.write` over Spark Connect; returns the batch's fields."""
    if merge_schema:
        raise ConnectNotSupportedError(
            "merge_schema is not available over Spark Connect: add the columns first with "
            f"ALTER TABLE {table(shard)} ADD COLUMNS (...), then write.")
    spark = df.sparkSession
    options = {key: ",".join(value) if isinstance(value, (list, tuple)) else str(value)
               for key, value in (("max_rows_per_part", max_rows_per_part), ("json_columns", json_columns),
                                  ("keep_stats", keep_stats), ("index_columns", index_columns)) if value}
    special = [c for c in (time_col, diff_col) if c is not None]
    missing = [c for c in special if c not in df.columns]
    if missing:
        raise InvalidInputError(f"{', '.join(missing)} not among the DataFrame's columns ({', '.join(df.columns)}).")
    if not spark.catalog.tableExists(f"persist.{quote(shard)}"):
        # Created from the data columns, with no batch: the write below is the shard's first.
        creator = df.drop(*special).limit(0).writeTo(table(shard)).options(**options)
        if order_by:
            creator = creator.tableProperty("order_by", ",".join(order_by))
        if cluster_by:
            creator = creator.clusterBy(*cluster_by)
        creator.create()
    elif order_by:
        shown = spark.sql(f"SHOW TBLPROPERTIES {table(shard)} ('order_by')").collect()
        existing = [c.strip().lower() for c in str(shown[0]["value"]).split(",")] if shown else []
        if existing != [c.lower() for c in order_by]:
            raise InvalidInputError(f"Shard '{shard}' is ordered by ({', '.join(existing)}); order_by is fixed when a "
                                    f"shard is created and cannot become ({', '.join(order_by)}). Omit order_by.")
    elif cluster_by is not None:
        existing = property_columns(spark, shard, "sparkpersist.clusterBy")
        if [c.lower() for c in existing] != [c.lower() for c in cluster_by]:
            raise InvalidInputError(f"Shard '{shard}' is clustered by ({', '.join(existing)}), not "
                                    f"({', '.join(cluster_by)}); change its clustering with ALTER TABLE {table(shard)} "
                                    "CLUSTER BY (...) or set_cluster_by(), or omit cluster_by.")
    before = _upper(spark, shard)
    if time_col is None and diff_col is None:
        df.writeTo(table(shard)).options(**options).append()
    else:
        columns = spark.table(table(shard)).columns
        time = F.col(quote(time_col)) if time_col is not None else None
        if time is not None and isinstance(df.schema[time_col].dataType, (TimestampType, TimestampNTZType)):
            time = F.unix_millis(time)
        if time is None:
            time = F.greatest(F.unix_millis(F.current_timestamp()), F.lit(before))
        diff = F.col(quote(diff_col)).cast("bigint") if diff_col is not None else F.lit(1).cast("bigint")
        data = [F.col(quote(c)) for c in df.columns if c in columns]
        df.select(*data, time.cast("bigint").alias("time"), diff.alias("diff")) \
            .writeTo(table(shard, "updates")).options(**options).append()
    written = spark.sql(f"SELECT batch_id, lower, upper, parts, row_count FROM {table(shard, 'batches')} "
                        f"WHERE lower >= {before} ORDER BY lower").collect()
    if not written:
        return {"id": "", "lower": before, "upper": before, "parts": 0, "rows": 0}
    batch = written[-1]
    return {"id": batch["batch_id"], "lower": int(batch["lower"]), "upper": int(batch["upper"]),
            "parts": int(batch["parts"]), "rows": int(batch["row_count"])}
