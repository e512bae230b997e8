"""Writing shards and inspecting their parts from PySpark."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from pyspark.sql import DataFrame, SparkSession

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
          keep_stats: Optional[Sequence[str]] = None) -> Batch:
    """Writes ``df`` as one batch of ``shard``, creating the shard on first write.

    Append-only writes (no ``diff_col``) stamp every row's time with the commit time, or take
    it from ``time_col``. Update writes pass ``diff_col`` (and usually ``time_col``). Times must
    be at or after the shard's current upper; otherwise nothing is written.

    Names at one level (top-level columns, or the fields of one struct) must be distinct ignoring
    case, under either ``spark.sql.caseSensitive`` setting; CHAR/VARCHAR columns of the shard get
    Spark's own length check. A schema the shard cannot hold is refused before anything is written.

    Args:
        df: the rows; its columns (minus ``time_col``/``diff_col``) must match the shard's.
        shard: the shard's name (letters, digits and underscores).
        time_col: a bigint (epoch ms) or timestamp column giving each update's time.
        diff_col: a bigint column giving each update's multiplicity (+1 insert, -1 retract).
        max_rows_per_part: split a write task's output into parts of at most this many rows.
        order_by: columns that rows inside a part are sorted by (fixed when the shard is created).
        json_columns: string columns holding JSON text, which then get JSON statistics (paths,
            kinds and bounds) so that ``get_json_object`` filters prune parts. Declared on the
            write that creates the shard; later writes may omit it or must name the same columns.
        keep_stats: columns whose part statistics are trimmed last when a part's statistics
            exceed ``spark.sparkpersist.stats.budgetBytes`` (time-like columns are kept too).

    Returns:
        The committed :class:`Batch`.
    """
    if is_connect(df):
        raise ConnectNotSupportedError(
            "sparkpersist.write() needs a classic session; under Spark Connect use "
            f"`df.writeTo('persist.{shard}').append()` or SQL INSERT INTO persist.{shard}.")
    if max_rows_per_part is not None and max_rows_per_part < 1:
        raise InvalidInputError(f"max_rows_per_part must be a positive integer, got {max_rows_per_part}")
    if isinstance(order_by, str):
        order_by = [order_by]
    if isinstance(json_columns, str):
        json_columns = [json_columns]
    if isinstance(keep_stats, str):
        keep_stats = [keep_stats]
    spark = df.sparkSession
    api = facade(spark, "write")
    with translated_errors():
        result = api.write(df._jdf, shard, time_col, diff_col,
                           None if max_rows_per_part is None else int(max_rows_per_part),
                           None if order_by is None else list(order_by),
                           None if json_columns is None else list(json_columns),
                           None if keep_stats is None else list(keep_stats))
    return Batch(id=str(result.get("id")), lower=int(result.get("lower")), upper=int(result.get("upper")),
                 parts=int(result.get("parts")), rows=int(result.get("rows")))


def parts(spark: SparkSession, shard: str) -> DataFrame:
    """Returns the parts of ``shard`` with their statistics, one row per part and column."""
    api = facade(spark, "parts")
    with translated_errors():
        return wrap_dataframe(api.parts(spark._jsparkSession, shard), spark)


def last_scans(spark: SparkSession) -> list[dict[str, Any]]:
    """What each persist scan of the session's latest query read, one dict per scan.

    Keys: ``shard``, ``as_of`` (epoch ms), ``mode`` (pushdown on/soft/off), ``parts_total``,
    ``parts_read``, ``parts_pruned``, ``bytes_total``, ``bytes_read``, ``pruning_ms``,
    ``soft_violations`` and ``part_keys_read`` (the ``key`` of each part read, as in
    :func:`parts`). Call it right after the query's action (``collect()``, ``count()``...).
    """
    api = facade(spark, "last_scans")
    with translated_errors():
        return [{str(k): _python(v) for k, v in report.items()} for report in api.lastScans(spark._jsparkSession)]


def _python(value: Any) -> Any:
    """py4j hands back Java boxed numbers as Python ints/floats already, Java lists as sequences
    (made Python lists here); keep the rest as str."""
    if value is None or isinstance(value, (int, float, bool)):
        return value
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [_python(v) for v in value]
    return str(value)


def shards(spark: SparkSession) -> list[str]:
    """Names of the shards under the session's root."""
    api = facade(spark, "shards")
    with translated_errors():
        return [str(n) for n in api.shards(spark._jsparkSession)]
