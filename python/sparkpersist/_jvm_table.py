"""A :class:`~sparkpersist.ShardTable` in a classic session: the JVM's ``sparkpersist.table.ShardTable`` over py4j."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from ._merge import ColumnOrStr, MergeClause, replay


class JvmTable:
    """A classic session's table: the JVM's ``sparkpersist.table.ShardTable``."""

    def __init__(self, spark: SparkSession, jtable: Any) -> None:
        self._spark = spark
        self._jtable = jtable
        self.shard: str = str(jtable.shard())

    def __str__(self) -> str:
        return str(self._jtable.toString()).removeprefix("ShardTable(").removesuffix(")")

    def alias(self, name: str) -> "JvmTable":
        return JvmTable(self._spark, self._jtable.alias(name))

    def _df(self, jdf: Any) -> DataFrame:
        return DataFrame(jdf, self._spark)

    def _column(self, value: ColumnOrStr) -> Any:
        return (F.expr(value) if isinstance(value, str) else value)._jc

    def _columns(self, values: Dict[str, ColumnOrStr]) -> Any:
        jmap = self._spark._jvm.java.util.LinkedHashMap()
        for name, value in values.items():
            jmap.put(name, self._column(value))
        return jmap

    def to_df(self) -> DataFrame:
        return self._df(self._jtable.toDF())

    def delete(self, condition: Optional[ColumnOrStr]) -> None:
        self._jtable.delete() if condition is None else self._jtable.delete(self._column(condition))

    def update(self, condition: Optional[ColumnOrStr], set: Dict[str, ColumnOrStr]) -> None:
        if condition is None:
            self._jtable.update(self._columns(set))
        else:
            self._jtable.update(self._column(condition), self._columns(set))

    def merge(self, source: DataFrame, condition: ColumnOrStr, clauses: List[MergeClause]) -> None:
        builder = self._jtable.merge(source._jdf, self._column(condition))
        builder = replay(builder, clauses, self._column, self._columns)
        builder.execute()

    def history(self, limit: Optional[int]) -> DataFrame:
        return self._df(self._jtable.history() if limit is None else self._jtable.history(limit))

    def restore_to_version(self, version: int) -> DataFrame:
        return self._df(self._jtable.restoreToVersion(version))

    def restore_to_timestamp(self, timestamp: str) -> DataFrame:
        return self._df(self._jtable.restoreToTimestamp(timestamp))

    def view(self, name: str) -> DataFrame:
        return self._df(getattr(self._jtable, name)())

    def detail(self) -> DataFrame:
        return self._df(self._jtable.detail())
