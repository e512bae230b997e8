"""A :class:`~sparkpersist.ShardTable` over Spark Connect: each operation as the SQL statement the JVM runs.

A Spark Connect client has no JVM to hold the table in, so each method issues the statement the
classic path's JVM builds: ``DELETE FROM``, ``UPDATE``, ``MERGE INTO`` (its source a temporary view
of a name of its own, dropped after), ``RESTORE TABLE`` and the shard's views. Conditions and values
must be SQL strings here: a Column of a Connect client cannot be written as the statement's SQL.
"""
from __future__ import annotations

import uuid
from typing import Any, Dict, List, Optional, Union

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from ._connect import _literal, quote
from ._merge import ColumnOrStr, MergeClause, replay
from .errors import ConnectNotSupportedError, InvalidInputError, ShardNotFoundError

CATALOG = "persist"


def split_name(name: str) -> List[str]:
    """The parts of a multi-part SQL name (``persist.`my events```), unquoted."""
    parts, part, quoted, i = [], "", False, 0
    while i < len(name):
        c = name[i]
        if c == "`" and quoted and name[i + 1:i + 2] == "`":
            part, i = part + "`", i + 2
            continue
        if c == "`":
            quoted = not quoted
        elif c == "." and not quoted:
            parts.append(part)
            part = ""
        else:
            part += c
        i += 1
    if quoted or not all(parts + [part]):
        raise InvalidInputError(f"'{name}' is not a table name: name a shard ('events') or 'persist.events'.")
    return parts + [part]


def sql_text(value: Union[Column, str], what: str) -> str:
    """``value`` as SQL: a string is SQL already; a Column cannot be written as SQL over Spark Connect."""
    if isinstance(value, str):
        return value
    raise ConnectNotSupportedError(
        f"ShardTable over Spark Connect takes {what} as a SQL string (e.g. \"t.id = s.id\"), not a Column: "
        "the statement runs as SQL, and a Connect Column cannot be written as SQL.")


class SqlTable:
    """A shard's table named by SQL name parts, its operations run as SQL statements."""

    def __init__(self, spark: SparkSession, parts: List[str], alias: Optional[str] = None) -> None:
        self._spark = spark
        self._parts = parts
        self._alias = alias
        self.shard: str = ".".join(parts[1:])  # as the procedures name it: dotted in a namespace, or a path

    @classmethod
    def for_name(cls, spark: SparkSession, name: str) -> "SqlTable":
        """The JVM's ``ShardTable.forName``: a shard, or ``persist.<shard>`` (``persist.<namespace>.<shard>``)."""
        parts = split_name(name)
        if len(parts) >= 2 and parts[0].lower() == CATALOG:
            parts = parts[1:]
        elif len(parts) != 1:
            raise InvalidInputError(
                f"'{name}' is not a persist table name. Use a shard ('events') or the persist catalog's table "
                f"('{CATALOG}.events'); ShardTable.forPath for a shard at a path.")
        table = cls(spark, [CATALOG] + parts)
        if not spark.catalog.tableExists(table._name()):
            raise ShardNotFoundError(f"No shard '{table.shard}' in the persist catalog: write to it or CREATE TABLE it first.")
        return table

    @classmethod
    def for_path(cls, spark: SparkSession, path: str) -> "SqlTable":
        if not isinstance(path, str) or not path.strip():
            raise InvalidInputError("ShardTable.forPath needs the shard's path, e.g. 's3a://bucket/shards/events'.")
        table = cls(spark, [CATALOG, path])
        table.to_df().schema  # the catalog's error when no shard is there
        return table

    def _name(self, view: Optional[str] = None) -> str:
        return ".".join(quote(p) for p in self._parts + ([view] if view else []))

    def _target(self) -> str:
        return self._name() + (f" AS {quote(self._alias)}" if self._alias else "")

    def __str__(self) -> str:
        return self._name() + (f" AS {self._alias}" if self._alias else "")

    def alias(self, name: str) -> "SqlTable":
        return SqlTable(self._spark, self._parts, name)

    def to_df(self) -> DataFrame:
        df = self._spark.table(self._name())
        return df.alias(self._alias) if self._alias else df

    def delete(self, condition: Optional[Union[Column, str]]) -> None:
        where = "" if condition is None else f" WHERE {sql_text(condition, 'the condition')}"
        self._spark.sql(f"DELETE FROM {self._target()}{where}")

    def update(self, condition: Optional[Union[Column, str]], set: Dict[str, Union[Column, str]]) -> None:
        where = "" if condition is None else f" WHERE {sql_text(condition, 'the condition')}"
        self._spark.sql(f"UPDATE {self._target()} SET {self._assignments(set)}{where}")

    @staticmethod
    def _assignments(values: Dict[str, Union[Column, str]]) -> str:
        return ", ".join(f"{name} = {sql_text(value, 'the values')}" for name, value in values.items())

    def merge(self, source: DataFrame, condition: ColumnOrStr, clauses: List[MergeClause]) -> None:
        if any(isinstance(v, Column) for v in _arguments(condition, clauses)):
            return self._merge_into(source, condition, clauses)
        on = sql_text(condition, "the merge condition")
        statement = [f"MERGE INTO {self._target()} USING {{source}} ON {on}"] + [self._clause(c) for c in clauses]
        view = f"sparkpersist_merge_{uuid.uuid4().hex}"
        source.createTempView(view)
        try:
            alias = source_alias(source)
            self._spark.sql("\n".join(statement).replace("{source}", f"{view} AS {quote(alias)}" if alias else view))
        finally:
            self._spark.catalog.dropTempView(view)

    def _merge_into(self, source: DataFrame, condition: ColumnOrStr, clauses: List[MergeClause]) -> None:
        """A MERGE with Columns, as pyspark's ``DataFrame.mergeInto``: Spark's MERGE plan, Columns kept as they are."""
        if self._alias:
            raise ConnectNotSupportedError(
                "A MERGE with Columns runs over Spark Connect as DataFrame.mergeInto, which names the target by its "
                f"table name, not an alias: drop alias('{self._alias}') and name the target's columns "
                f"{self._name()}.<column>, or pass the condition and values as SQL strings.")

        def column(value: ColumnOrStr) -> Column:
            return F.expr(value) if isinstance(value, str) else value

        writer = source.mergeInto(self._name(), column(condition))
        replay(writer, clauses, column, lambda values: {k: column(v) for k, v in values.items()}).merge()

    def _clause(self, clause: MergeClause) -> str:
        when = {"matched": "WHEN MATCHED", "not_matched": "WHEN NOT MATCHED",
                "not_matched_by_source": "WHEN NOT MATCHED BY SOURCE"}[clause.kind]
        if clause.condition is not None:
            when += f" AND {sql_text(clause.condition, 'a clause condition')}"
        values = clause.values or {}
        action = {
            "update": lambda: f"UPDATE SET {self._assignments(values)}",
            "update_all": lambda: "UPDATE SET *",
            "delete": lambda: "DELETE",
            "insert": lambda: f"INSERT ({', '.join(values)}) VALUES "
                              f"({', '.join(sql_text(v, 'the values') for v in values.values())})",
            "insert_all": lambda: "INSERT *",
        }[clause.action]()
        return f"{when} THEN {action}"

    def history(self, limit: Optional[int]) -> DataFrame:
        history = self._spark.table(self._name("history")).orderBy("version", ascending=False)
        return history if limit is None else history.limit(limit)

    def restore_to_version(self, version: int) -> DataFrame:
        return self._spark.sql(f"RESTORE TABLE {self._name()} TO VERSION AS OF {int(version)}")

    def restore_to_timestamp(self, timestamp: str) -> DataFrame:
        return self._spark.sql(f"RESTORE TABLE {self._name()} TO TIMESTAMP AS OF {_literal(timestamp)}")

    def view(self, name: str) -> DataFrame:
        return self._spark.table(self._name(name))

    def detail(self) -> DataFrame:
        """The JVM's ``ShardTable.detail()``: the same aggregate of the batches view."""
        return self.view("batches").agg(
            F.lit("persist").alias("format"), F.lit(self._name()).alias("name"),
            F.coalesce(F.sum("parts").cast("long"), F.lit(0)).alias("numFiles"),
            F.coalesce(F.sum("bytes"), F.lit(0)).alias("sizeInBytes"), F.count(F.lit(1)).alias("numBatches"),
            F.timestamp_millis(F.max("committed_at_ms")).alias("lastModified"))


def _arguments(condition: ColumnOrStr, clauses: List[MergeClause]) -> List[ColumnOrStr]:
    """Every condition and value of a MERGE."""
    out = [condition]
    for clause in clauses:
        out += ([clause.condition] if clause.condition is not None else []) + list((clause.values or {}).values())
    return out


def source_alias(source: DataFrame) -> Optional[str]:
    """The alias ``source.alias(...)`` gave a Connect DataFrame, which the MERGE's source keeps."""
    plan: Any = getattr(source, "_plan", None)
    return getattr(plan, "_alias", None) if type(plan).__name__ == "SubqueryAlias" else None
