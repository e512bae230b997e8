"""``ShardTable``: a shard's table held by a handle, with delta-spark's ``DeltaTable`` names.

In a classic session every method calls the JVM's ``sparkpersist.table.ShardTable`` (py4j), which
builds Spark's own DELETE/UPDATE/MERGE statements; over Spark Connect it runs the same statements
as SQL (``DELETE FROM``, ``UPDATE``, ``MERGE INTO``, ``RESTORE TABLE``, ``CALL persist.system.…``),
so both paths share the JVM's implementation of each operation.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as F

from . import _api
from ._connect import _literal
from ._jvm import facade, is_connect
from ._jvm_table import JvmTable
from ._merge import ColumnOrStr, ShardMergeBuilder
from ._sql_table import SqlTable
from .errors import InvalidInputError, translated_errors


class ShardTable:
    """A shard's table, with delta-spark's ``DeltaTable`` names: code moves over with the import changed.

    ::

        events = ShardTable.forName(spark, "events")
        events.delete("country = 'XX'")
        (events.alias("t").merge(updates.alias("s"), "t.id = s.id")
            .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute())
        events.history(10).show()
        events.restoreToVersion(3)

    Conditions and values are SQL strings or Columns. Over Spark Connect, ``delete`` and ``update``
    take SQL strings only, and a MERGE with Columns runs as pyspark's ``DataFrame.mergeInto`` (the
    target then named by its table name, not an alias); otherwise a Column raises
    :class:`~sparkpersist.ConnectNotSupportedError`, saying to pass a SQL string.
    """

    def __init__(self, spark: SparkSession, backend: Any) -> None:
        """Use :meth:`forName` or :meth:`forPath`."""
        self._spark = spark
        self._backend = backend

    @classmethod
    def forName(cls, sparkSession: SparkSession, tableOrViewName: str) -> "ShardTable":
        """The shard named ``tableOrViewName`` (``events`` or ``persist.events``) of the session's catalog.

        Raises :class:`~sparkpersist.ShardNotFoundError` when there is no such shard, and
        :class:`~sparkpersist.InvalidInputError` for a name of another catalog.
        """
        if is_connect(sparkSession):
            return cls(sparkSession, SqlTable.for_name(sparkSession, tableOrViewName))
        facade(sparkSession, "ShardTable.forName")  # a classic session with the jar, or a clear error
        with translated_errors():
            return cls(sparkSession, JvmTable(sparkSession, sparkSession._jvm.sparkpersist.table.ShardTable.forName(
                sparkSession._jsparkSession, tableOrViewName)))

    @classmethod
    def forPath(cls, sparkSession: SparkSession, path: str) -> "ShardTable":
        """The shard stored at ``path`` (any Hadoop FileSystem URI), as SQL's ``persist.`<path>```."""
        if is_connect(sparkSession):
            return cls(sparkSession, SqlTable.for_path(sparkSession, path))
        facade(sparkSession, "ShardTable.forPath")
        with translated_errors():
            return cls(sparkSession, JvmTable(sparkSession, sparkSession._jvm.sparkpersist.table.ShardTable.forPath(
                sparkSession._jsparkSession, path)))

    @classmethod
    def isShardTable(cls, sparkSession: SparkSession, identifier: str) -> bool:
        """Whether ``identifier`` is a shard: a path (holding ``/`` or ``:``) or a shard's name."""
        opener = cls.forPath if ("/" in identifier or ":" in identifier) else cls.forName
        try:
            opener(sparkSession, identifier)
            return True
        except Exception:  # any failure to open it: not a shard (as delta-spark's isDeltaTable)
            return False

    def alias(self, aliasName: str) -> "ShardTable":
        """This table under an alias, to name its columns in a condition (``t.id = s.id``)."""
        return ShardTable(self._spark, self._backend.alias(aliasName))

    def toDF(self) -> DataFrame:
        """The table's rows as of now, as a DataFrame (under the alias, if any)."""
        return self._backend.to_df()

    def delete(self, condition: Optional[ColumnOrStr] = None) -> None:
        """Deletes the rows on which ``condition`` holds (every row without one), as ``DELETE FROM``."""
        with translated_errors():
            self._backend.delete(condition)

    def update(self, condition: Optional[ColumnOrStr] = None,
               set: Optional[Dict[str, ColumnOrStr]] = None) -> None:
        """Sets the columns of ``set`` to their values in the rows on which ``condition`` holds, as ``UPDATE``.

        Args:
            condition: the rows to update (every row when None).
            set: column name (nested fields dotted) to its new value, a Column or a SQL expression.
        """
        if not set:
            raise InvalidInputError("update() needs set: a dict of column name to its new value.")
        with translated_errors():
            self._backend.update(condition, set)

    def merge(self, source: DataFrame, condition: ColumnOrStr) -> "ShardMergeBuilder":
        """Starts a MERGE of ``source`` into this table, matching rows on ``condition``; ends with ``execute()``."""
        if not isinstance(source, DataFrame):
            raise InvalidInputError(f"merge() needs a DataFrame as its source, got {type(source).__name__}")
        return ShardMergeBuilder(self._backend, source, condition, [])

    def history(self, limit: Optional[int] = None) -> DataFrame:
        """The table's commits, newest first (``persist.<shard>.history``); the newest ``limit`` when given."""
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise InvalidInputError(f"limit must be a positive integer, got {limit!r}")
        with translated_errors():
            return self._backend.history(limit)

    def restoreToVersion(self, version: int) -> DataFrame:
        """Restores the table to its rows at state ``version`` (``RESTORE TABLE ... TO VERSION AS OF``)."""
        if isinstance(version, bool) or not isinstance(version, int) or version < 0:
            raise InvalidInputError(f"version must be a state version number (an integer >= 0), got {version!r}")
        with translated_errors():
            return self._backend.restore_to_version(version)

    def restoreToTimestamp(self, timestamp: str) -> DataFrame:
        """Restores the table to its rows at ``timestamp`` (``RESTORE TABLE ... TO TIMESTAMP AS OF``)."""
        if not isinstance(timestamp, str) or not timestamp:
            raise InvalidInputError(f"timestamp must be a timestamp string ('2026-01-31 12:00:00'), got {timestamp!r}")
        with translated_errors():
            return self._backend.restore_to_timestamp(timestamp)

    def compact(self, **options: Any) -> dict[str, Any]:
        """Compacts the shard: :func:`sparkpersist.compact` with the same keyword options and summary."""
        return _api.compact(self._spark, self._backend.shard, **options)

    def gc(self, *, keep_versions: Optional[int] = None, grace_ms: Optional[int] = None) -> dict[str, Any]:
        """Deletes the files no live state version refers to: :func:`sparkpersist.gc`, same options and summary."""
        return _api.gc(self._spark, self._backend.shard, keep_versions=keep_versions, grace_ms=grace_ms)

    def vacuum(self, retentionHours: Optional[float] = None) -> dict[str, Any]:
        """delta-spark's ``vacuum``, as :meth:`gc` with a grace of ``retentionHours`` (default: the session's).

        Unlike Delta's, it also keeps every file of the newest ``spark.sparkpersist.gc.keepVersions``
        versions, however old, and returns :meth:`gc`'s summary.
        """
        if retentionHours is not None and (isinstance(retentionHours, bool) or
                                           not isinstance(retentionHours, (int, float)) or retentionHours < 0):
            raise InvalidInputError(f"retentionHours must be a number >= 0, got {retentionHours!r}")
        return self.gc(grace_ms=None if retentionHours is None else int(retentionHours * 3_600_000))

    def syncIceberg(self) -> Row:
        """Writes (or brings up to date) the shard's Iceberg metadata: ``CALL persist.system.iceberg``.

        Other engines (pyiceberg, polars, DuckDB, Trino, Spark's Iceberg source) then read the shard
        as an Iceberg table at its location (docs/interop.md). Works whether or not the shard has
        ``sparkpersist.iceberg = 'true'``, in a classic session and over Spark Connect.

        Returns:
            The procedure's row: ``shard_version`` (the shard version the newest Iceberg snapshot
            reflects), ``snapshot_id``, ``metadata_location`` (the newest ``vN.metadata.json``, for
            ``pyiceberg.table.StaticTable.from_metadata``), ``data_files``, ``delete_files``,
            ``snapshots_written`` and ``note`` (why ``shard_version`` is not the shard's newest
            version; None when it is).
        """
        with translated_errors():
            [row] = self._spark.sql(
                f"CALL persist.system.iceberg(shard => {_literal(self._backend.shard)})").collect()
        return row

    def parts(self) -> DataFrame:
        """The shard's parts, one row per part with its statistics (``persist.<shard>.parts``)."""
        with translated_errors():
            return self._backend.view("parts")

    def batches(self) -> DataFrame:
        """The shard's batches (``persist.<shard>.batches``): bounds, runs, parts, operation."""
        with translated_errors():
            return self._backend.view("batches")

    def detail(self) -> DataFrame:
        """One row about the table, as delta-spark's ``detail()``: format, name, numFiles, sizeInBytes, numBatches, lastModified."""
        with translated_errors():
            return self._backend.detail()

    def updates(self, since: Optional[int] = None) -> DataFrame:
        """The shard's raw updates (data..., ``time``, ``diff``); those at ``since`` (epoch ms) and later when given."""
        if since is not None and (isinstance(since, bool) or not isinstance(since, int)):
            raise InvalidInputError(f"since must be a time in epoch milliseconds, got {since!r}")
        with translated_errors():
            updates = self._backend.view("updates")
            return updates if since is None else updates.where(F.col("time") >= since)

    def __repr__(self) -> str:
        return f"ShardTable({self._backend})"
