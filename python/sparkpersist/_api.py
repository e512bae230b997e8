"""Writing shards and inspecting their parts from PySpark."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

from pyspark.sql import DataFrame, SparkSession

from . import _connect
from ._jvm import facade, is_connect, wrap_dataframe
from .errors import ConnectNotSupportedError, InvalidInputError, translated_errors


@dataclass(frozen=True)
class Batch:
    """The batch one :func:`write` committed: its id, time bounds ``[lower, upper)``, parts and rows."""

    id: str
    lower: int
    upper: int
    parts: int
    rows: int


def write(df: DataFrame, shard: str, *, time_col: Optional[str] = None, diff_col: Optional[str] = None,
          max_rows_per_part: Optional[int] = None, order_by: Optional[Sequence[str]] = None,
          json_columns: Optional[Sequence[str]] = None,
          keep_stats: Optional[Sequence[str]] = None,
          index_columns: Optional[Sequence[str]] = None, merge_schema: bool = False,
          cluster_by: Optional[Sequence[str]] = None) -> Batch:
    """Writes ``df`` as one batch of ``shard``, creating the shard on first write.

    Append-only writes (no ``diff_col``) stamp every row's time with the commit time, or take
    it from ``time_col``. Update writes pass ``diff_col`` (and usually ``time_col``). Times must
    be at or after the shard's current upper; otherwise nothing is written.

    Names at one level (top-level columns, or the fields of one struct) must be distinct ignoring
    case, under either ``spark.sql.caseSensitive`` setting; CHAR/VARCHAR columns of the shard get
    Spark's own length check. A schema the shard cannot hold is refused before anything is written.

    Args:
        df: the rows; its columns (minus ``time_col``/``diff_col``) must match the shard's.
        shard: the shard: its name (letters, digits and underscores; ``sales.orders`` for
            ``orders`` in the namespace ``sales``) or its location (``/data/t``, ``s3a://bucket/t``).
        time_col: a bigint (epoch ms) or timestamp column giving each update's time.
        diff_col: a bigint column giving each update's multiplicity (+1 insert, -1 retract).
        max_rows_per_part: split a write task's output into parts of at most this many rows.
        order_by: columns that rows inside a part are sorted by (fixed when the shard is created).
        json_columns: string columns holding JSON text, which then get JSON statistics (paths,
            kinds and bounds) so that ``get_json_object`` filters prune parts. Declared on the
            write that creates the shard; later writes may omit it or must name the same columns.
        keep_stats: columns whose part statistics are trimmed last when a part's statistics
            exceed ``spark.sparkpersist.stats.budgetBytes`` (time-like columns are kept too).
        index_columns: integer, date, timestamp, float or (UTF8_BINARY) string columns whose parts
            get membership filters, so ``=``, ``IN`` and ``<=>`` with constants skip parts that
            do not hold them even when min/max spans everything. Their statistics are trimmed last.
        merge_schema: add the columns of ``df`` that an existing shard lacks to the shard
            (nullable, with new column ids, as ``ALTER TABLE ... ADD COLUMNS``), in the same state
            version as the batch: if the write fails, no column is added. The shard's columns
            that ``df`` lacks are written as nulls. Types of columns both have must still match.
        cluster_by: up to 4 columns (boolean, number, date, timestamp, string or binary) that compaction
            clusters rows by (``CLUSTER BY``): set when this write creates the shard; an existing shard
            must already be clustered by them (change its clustering with :func:`set_cluster_by`).

    Returns:
        The committed :class:`Batch`.
    """
    if max_rows_per_part is not None and max_rows_per_part < 1:
        raise InvalidInputError(f"max_rows_per_part must be a positive integer, got {max_rows_per_part}")
    if isinstance(order_by, str):
        order_by = [order_by]
    if isinstance(json_columns, str):
        json_columns = [json_columns]
    if isinstance(keep_stats, str):
        keep_stats = [keep_stats]
    if isinstance(index_columns, str):
        index_columns = [index_columns]
    if isinstance(cluster_by, str):
        cluster_by = [cluster_by]
    if is_connect(df):
        batch = _connect.write(df, shard, time_col=time_col, diff_col=diff_col, max_rows_per_part=max_rows_per_part,
                               order_by=order_by, json_columns=json_columns, keep_stats=keep_stats,
                               index_columns=index_columns, merge_schema=merge_schema, cluster_by=cluster_by)
        return Batch(id=str(batch["id"]), lower=int(batch["lower"]), upper=int(batch["upper"]),
                     parts=int(batch["parts"]), rows=int(batch["rows"]))
    spark = df.sparkSession
    api = facade(spark, "write")
    with translated_errors():
        result = api.write(df._jdf, shard, time_col, diff_col,
                           None if max_rows_per_part is None else int(max_rows_per_part),
                           None if order_by is None else list(order_by),
                           None if json_columns is None else list(json_columns),
                           None if keep_stats is None else list(keep_stats),
                           None if index_columns is None else list(index_columns), bool(merge_schema),
                           None if cluster_by is None else list(cluster_by))
    return Batch(id=str(result.get("id")), lower=int(result.get("lower")), upper=int(result.get("upper")),
                 parts=int(result.get("parts")), rows=int(result.get("rows")))


def set_index_columns(spark: SparkSession, shard: str, columns: Optional[Sequence[str]]) -> list[str]:
    """Sets the table property ``sparkpersist.indexColumns`` of an existing ``shard``.

    Every later write (``write``, SQL ``INSERT``, the streaming sink, compaction) gives the parts
    of these columns membership filters, as ``index_columns`` does for one write. Parts already
    written keep the filters they have. Same as
    ``ALTER TABLE persist.<shard> SET TBLPROPERTIES ('sparkpersist.indexColumns' = '...')``.

    Args:
        spark: the session.
        shard: the shard's name (``sales.orders`` in a namespace) or location; it must exist
            (write to it or ``CREATE TABLE`` it first).
        columns: integer, date, timestamp, float, double, decimal or (UTF8_BINARY) string columns, or arrays
            of them; ``None`` or ``[]`` clears the property.

    Returns:
        The index columns now set, by their names in the shard.
    """
    if isinstance(columns, str):
        columns = [columns]
    if is_connect(spark):
        return _connect.set_index_columns(spark, shard, columns)
    api = facade(spark, "set_index_columns")
    with translated_errors():
        value = api.setIndexColumns(spark._jsparkSession, shard, None if columns is None else list(columns))
    return [c for c in str(value).split(",") if c]


def set_cluster_by(spark: SparkSession, shard: str, columns: Optional[Sequence[str]]) -> list[str]:
    """Sets the clustering columns of an existing ``shard`` (``ALTER TABLE ... CLUSTER BY``).

    Compaction then lays each sealed time window out along a space-filling curve of these columns,
    in parts of about ``spark.sparkpersist.cluster.partBytes``, so that filters on them skip parts
    as filters on time do. Windows clustered by other columns are laid out again by the next
    :func:`compact`. Works over Spark Connect too.

    Args:
        spark: the session.
        shard: the shard's name (``sales.orders`` in a namespace) or location; it must exist.
        columns: up to 4 boolean, number, date, timestamp, (UTF8_BINARY) string or binary columns;
            ``None`` or ``[]`` stops clustering (``CLUSTER BY NONE``).

    Returns:
        The clustering columns now set, by their names in the shard.
    """
    if isinstance(columns, str):
        columns = [columns]
    with translated_errors():
        return _connect.set_cluster_by(spark, shard, columns)


def parts(spark: SparkSession, shard: str) -> DataFrame:
    """Returns the parts of ``shard`` with their statistics, one row per part and column."""
    if is_connect(spark):
        return _connect.parts(spark, shard)
    api = facade(spark, "parts")
    with translated_errors():
        return wrap_dataframe(api.parts(spark._jsparkSession, shard), spark)


def last_scans(spark: SparkSession) -> list[dict[str, Any]]:
    """What each persist scan of the session's latest query read, one dict per scan.

    Keys: ``shard``, ``as_of`` (epoch ms), ``mode`` (pushdown on/soft/off), ``parts_total``,
    ``parts_read``, ``parts_pruned``, ``segments_skipped`` (segments of parts ruled out whole on
    their summaries), ``parts_runtime_pruned`` (parts a join's runtime filter ruled out besides),
    ``parts_proven_true`` (parts read on which the filter is proven true for every row; soft mode
    verifies them), ``parts_from_stats`` (parts whose share of an aggregate was answered from their
    statistics, not read), ``bytes_total``, ``bytes_read``, ``pruning_ms``,
    ``soft_violations``, ``part_keys_read`` (the ``key`` of each part read, as in
    :func:`parts`) and ``part_keys_proven_true`` (those of the parts proven true). Call it right after the query's action (``collect()``, ``count()``...).
    Over Spark Connect it runs ``CALL persist.system.last_scans()``.
    """
    if is_connect(spark):
        return _connect.last_scans(spark)
    api = facade(spark, "last_scans")
    with translated_errors():
        return [{str(k): _python(v) for k, v in report.items()} for report in api.lastScans(spark._jsparkSession)]


def _python(value: Any) -> Any:
    """py4j hands back Java boxed numbers as Python ints/floats already, Java lists as sequences
    and maps as mappings (made Python lists and dicts here); keep the rest as str."""
    if value is None or isinstance(value, (int, float, bool)):
        return value
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [_python(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _python(v) for k, v in value.items()}
    return str(value)


def shards(spark: SparkSession) -> list[str]:
    """Names of the shards under the session's root."""
    if is_connect(spark):
        return _connect.shards(spark)
    api = facade(spark, "shards")
    with translated_errors():
        return [str(n) for n in api.shards(spark._jsparkSession)]


def _lifecycle(spark: SparkSession, what: str) -> Any:
    """The JVM facade of the shard lifecycle (``sparkpersist.api.LifecycleApi``)."""
    facade(spark, what)  # a classic session with the jar, or a clear error
    return spark._jvm.sparkpersist.api.LifecycleApi


def _check_int(name: str, value: Optional[int], minimum: int) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidInputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def compact(spark: SparkSession, shard: str, *, retention_ms: Optional[int] = None, fan_in: Optional[int] = None,
            target_bytes: Optional[int] = None, window_ms: Optional[int] = None,
            keep_stats: Optional[Sequence[str]] = None, gc: Optional[bool] = None,
            cluster: bool = False) -> dict[str, Any]:
    """Compacts ``shard``: merges adjacent batches into larger sorted runs and consolidates at ``since``.

    First, with a retention, ``since`` moves to ``upper - retention_ms`` (reads as of earlier times
    are refused from then on). Then rounds of merging run until nothing is left to merge: adjacent
    batches whose update times lie in one window of ``window_ms`` (UTC days by default) merge
    size-tiered, ``fan_in`` batches of similar size at a time; once the shard's upper passes a
    window, its leftovers are packed up to ``target_bytes``. Below ``since`` times advance to
    ``since`` and, where there are retractions, equal updates are summed and those that cancel are
    dropped. A shard with clustering columns (:func:`set_cluster_by`) has each sealed window laid
    out along a curve of them once; the open window (today's, by default) only with ``cluster=True``.
    Reads return the same rows at every time from ``since`` on.
    Each round is one Spark job and one compare-and-set commit: appends committed meanwhile are kept.

    Args:
        spark: a classic session with the persist catalog (:func:`sparkpersist.session`).
        shard: the shard's name (``sales.orders`` in a namespace) or location.
        retention_ms: update-time history kept readable below the upper; default
            ``spark.sparkpersist.retentionMs`` (unset: ``since`` does not move).
        fan_in: batches of one size tier merged into one (>= 2); default ``spark.sparkpersist.compact.fanIn``.
        target_bytes: size of a complete batch; default ``spark.sparkpersist.compact.targetBytes``.
        window_ms: the time-span limit; default ``spark.sparkpersist.compact.windowMs``.
        keep_stats: columns whose part statistics the stats budget trims last, as in :func:`write`.
        gc: garbage-collect the shard afterwards (:func:`gc`); default ``spark.sparkpersist.compact.gc``.
        cluster: lay every window of a clustered shard out again, even those already clustered
            (after changing ``spark.sparkpersist.cluster.partBytes`` or the curve, say), and the open
            window too, as its batches are now; batches appended to it later are laid out when it
            seals (automatic compaction never lays out the open window).

    Returns:
        A summary: ``since_before``, ``since``, ``rounds``, ``groups_merged``, ``groups_lost``,
        ``batches_before``/``after``, ``parts_before``/``after``, ``rows_read``/``written``,
        ``bytes_read``/``written``, ``millis``, after a GC ``gc_parts_deleted`` and
        ``gc_state_files_deleted`` (else None), and ``windows``: one dict per time window, oldest
        first, saying what the compaction did there and why: ``start`` and ``end`` (update times in
        epoch ms; ``start`` None for the settled history below ``since``), ``action``
        (``clustered``, ``merged`` or ``none``), ``reason`` (e.g. ``open: laid out along (country)
        once it seals, or now with cluster => true``, ``already clustered by (country)``),
        ``parts_before`` and ``parts_after``.
    """
    if isinstance(keep_stats, str):
        keep_stats = [keep_stats]
    if gc is not None and not isinstance(gc, bool):
        raise InvalidInputError(f"gc must be True or False, got {gc!r}")
    if not isinstance(cluster, bool):
        raise InvalidInputError(f"cluster must be True or False, got {cluster!r}")
    args = (_check_int("retention_ms", retention_ms, 0), _check_int("fan_in", fan_in, 2),
            _check_int("target_bytes", target_bytes, 1), _check_int("window_ms", window_ms, 1))
    if is_connect(spark):
        if keep_stats:
            raise ConnectNotSupportedError("keep_stats is not available to compact() over Spark Connect; omit it.")
        return _connect.call(spark, "compact", shard=shard, retention_ms=args[0], fan_in=args[1],
                             target_bytes=args[2], window_ms=args[3], gc=gc, cluster=cluster or None)[0]
    api = _lifecycle(spark, "compact")
    with translated_errors():
        result = api.compact(spark._jsparkSession, shard, *args,
                             None if keep_stats is None else list(keep_stats), gc, cluster)
    return {str(k): _python(v) for k, v in result.items()}


def gc(spark: SparkSession, shard: str, *, keep_versions: Optional[int] = None,
       grace_ms: Optional[int] = None) -> dict[str, Any]:
    """Deletes the files of ``shard`` that no live state version refers to.

    Live versions are the newest ``keep_versions`` and every version committed within the last
    ``grace_ms``: a reader that opened the shard at one of them keeps its files. Parts no live
    version refers to (replaced by compaction, or orphans of crashed writers) are deleted once
    older than ``grace_ms`` (a younger one may belong to a write still running), and so are state
    versions older than the newest rollup at or below the oldest live version.

    Args:
        spark: a classic session with the persist catalog.
        shard: the shard's name (``sales.orders`` in a namespace) or location.
        keep_versions: default ``spark.sparkpersist.gc.keepVersions`` (10).
        grace_ms: default ``spark.sparkpersist.gc.graceMs`` (one day); must exceed the longest write.

    Returns:
        A summary: ``oldest_live_version``, ``newest_version``, ``parts_deleted``,
        ``bytes_deleted``, ``parts_kept`` and ``state_files_deleted``.
    """
    args = (_check_int("keep_versions", keep_versions, 1), _check_int("grace_ms", grace_ms, 0))
    if is_connect(spark):
        return _connect.call(spark, "gc", shard=shard, keep_versions=args[0], grace_ms=args[1])[0]
    api = _lifecycle(spark, "gc")
    with translated_errors():
        result = api.gc(spark._jsparkSession, shard, *args)
    return {str(k): _python(v) for k, v in result.items()}


def drop_batch(spark: SparkSession, shard: str, batch: str) -> dict[str, Any]:
    """Removes one batch of ``shard``, at every time: the way out when its parts cannot be read.

    Use it when a read fails with :class:`UnreadablePartError` and no backup of the part exists (or
    the part was written by an older sparkpersist with a null inside an array, map or struct level
    declared NOT NULL, whose values cannot be recovered). The batch is replaced, in one commit, by an
    empty batch over the same time range: every other batch and the frontiers stay, the batch's
    rows are gone from every snapshot (history included), and :func:`gc` later deletes its files.

    Args:
        spark: a classic session with the persist catalog.
        shard: the shard's name (``sales.orders`` in a namespace) or location.
        batch: the batch's id (``persist.<shard>.batches``), or the path of one of its parts as the
            read error names it.

    Returns:
        ``shard``, ``batch_id``, ``lower``, ``upper``, ``parts`` and ``rows`` of the dropped batch.
    """
    if not isinstance(batch, str) or not batch:
        raise InvalidInputError(f"batch must be a batch id or a part's path, got {batch!r}")
    if is_connect(spark):
        return _connect.call(spark, "drop_batch", shard=shard, batch=batch)[0]
    api = _lifecycle(spark, "drop_batch")
    with translated_errors():
        result = api.dropBatch(spark._jsparkSession, shard, batch)
    return {str(k): _python(v) for k, v in result.items()}
