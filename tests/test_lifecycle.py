"""The shard lifecycle from PySpark: compaction, retention (since), garbage collection, the batches view."""
from __future__ import annotations

from pathlib import Path

import pytest

import sparkpersist

DAY = 86_400_000


def _append(spark, shard: str, t: int, *rows: tuple[int, str]) -> None:
    df = spark.createDataFrame([(k, v, t) for k, v in rows], "k bigint, v string, t bigint").coalesce(1)
    sparkpersist.write(df, shard, time_col="t", order_by=["k"])


def _rows(spark, sql: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.sql(sql).collect())


def _part_files(root: Path, shard: str) -> set[str]:
    return {str(p.relative_to(root / shard)) for p in (root / shard / "parts").rglob("*.parquet")}


def test_compact_merges_a_sealed_day_and_reads_the_same(spark, shard_name, root) -> None:
    for i in range(1, 4):
        _append(spark, shard_name, i * 10, (i, f"day0-{i}"), (10 + i, "x"))
    _append(spark, shard_name, DAY + 1, (4, "day1"))
    before = _rows(spark, f"SELECT * FROM persist.{shard_name}")
    summary = sparkpersist.compact(spark, shard_name, window_ms=DAY)
    assert {k: summary[k] for k in ("batches_before", "batches_after", "parts_before", "parts_after",
                                     "groups_merged", "groups_lost", "rows_read", "rows_written")} == {
        "batches_before": 4, "batches_after": 2, "parts_before": 4, "parts_after": 2,
        "groups_merged": 1, "groups_lost": 0, "rows_read": 6, "rows_written": 6}
    assert summary["gc_parts_deleted"] is None
    assert _rows(spark, f"SELECT * FROM persist.{shard_name}") == before
    assert _rows(spark, f"SELECT lower, upper, appends, runs, parts, row_count FROM persist.{shard_name}.batches") == [
        (0, 31, 3, 1, 1, 6), (31, DAY + 2, 1, 1, 1, 1)]

    # The replaced parts stay until garbage collection finds no live version referring to them.
    assert len(_part_files(root, shard_name)) == 5
    collected = sparkpersist.gc(spark, shard_name, keep_versions=1, grace_ms=0)
    assert (collected["parts_deleted"], collected["parts_kept"]) == (3, 2)
    assert len(_part_files(root, shard_name)) == 2
    assert _rows(spark, f"SELECT * FROM persist.{shard_name}") == before


def test_retention_moves_since_and_earlier_reads_are_refused(spark, shard_name, session_conf) -> None:
    updates = spark.createDataFrame([("a", 100, 1), ("a", 200, -1), ("b", 200, 1), ("c", 300, 1)],
                                    "name string, t bigint, d bigint")
    for t in (100, 200, 300):
        sparkpersist.write(updates.where(f"t = {t}").coalesce(1), shard_name, time_col="t", diff_col="d")
    summary = sparkpersist.compact(spark, shard_name, retention_ms=50, window_ms=DAY)
    assert (summary["since_before"], summary["since"], summary["batches_after"]) == (0, 251, 2)
    assert _rows(spark, f"SELECT * FROM persist.{shard_name}.updates") == [("b", 200, 1), ("c", 300, 1)]
    with session_conf("spark.sparkpersist.asOf", "250"):
        with pytest.raises(Exception, match=r"history before since = 251 has been compacted"):
            spark.table(f"persist.{shard_name}").collect()


def test_sql_call_compacts_and_collects(spark, shard_name) -> None:
    for i in range(1, 3):
        _append(spark, shard_name, i, (i, "v"))
    _append(spark, shard_name, DAY, (3, "w"))
    row = spark.sql(f"CALL persist.system.compact(shard => '{shard_name}', window_ms => {DAY}, gc => true)").collect()[0]
    assert (row["batches_before"], row["batches_after"]) == (3, 2)
    assert row["gc_parts_deleted"] == 0  # the replaced parts are younger than the default grace of a day
    row = spark.sql(f"CALL persist.system.gc('{shard_name}', keep_versions => 1, grace_ms => 0)").collect()[0]
    assert row["parts_deleted"] == 2


def test_lifecycle_errors_say_what_to_do(spark) -> None:
    with pytest.raises(sparkpersist.ShardNotFoundError, match="Shard 'nope' does not exist"):
        sparkpersist.compact(spark, "nope")
    with pytest.raises(sparkpersist.ShardNotFoundError):
        sparkpersist.gc(spark, "nope")
    with pytest.raises(sparkpersist.InvalidInputError, match="fan_in must be an integer >= 2"):
        sparkpersist.compact(spark, "nope", fan_in=1)
    with pytest.raises(sparkpersist.InvalidInputError, match="grace_ms must be an integer >= 0"):
        sparkpersist.gc(spark, "nope", grace_ms=-1)
