"""Schema evolution seen from PySpark: ALTER TABLE and merge_schema, parts read by column id."""
from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
import sparkpersist
from sparkpersist.errors import InvalidInputError


def _batch(spark, start: int, end: int, *columns: str):
    """One part: ids start..end-1 as `k`, and `columns` (SQL expressions over `id`)."""
    return spark.range(start, end, numPartitions=1).selectExpr("id AS k", *columns)


def _read(spark, query: str) -> tuple[list, int, int]:
    """The rows of `query`, and the parts its scan kept and pruned (decided in every mode)."""
    rows = sorted(tuple(r) for r in spark.sql(query).collect())
    [scan] = sparkpersist.last_scans(spark)
    assert scan["soft_violations"] == 0
    return rows, scan["parts_total"] - scan["parts_pruned"], scan["parts_pruned"]


def _in_every_mode(spark, session_conf, query: str) -> tuple[list, int]:
    """Rows and parts kept with pushdown on; soft (failing on violations) and off agree."""
    rows, kept, _ = _read(spark, query)
    with session_conf("spark.sparkpersist.pushdown.mode", "soft"), \
            session_conf("spark.sparkpersist.pushdown.soft.failOnViolation", "true"):
        soft_rows, _, soft_pruned = _read(spark, query)
    with session_conf("spark.sparkpersist.pushdown.mode", "off"):
        off_rows, off_kept, _ = _read(spark, query)
    assert rows == soft_rows == off_rows
    assert soft_pruned == off_kept - kept
    return rows, kept


def test_rename_keeps_data_and_pruning_and_the_old_part_keeps_its_name(
        spark, shard_name, root: Path, session_conf) -> None:
    with session_conf("spark.sparkpersist.pushdown.mode", "on"):
        sparkpersist.write(_batch(spark, 0, 10, "CAST(id AS INT) AS v"), shard_name)
        sparkpersist.write(_batch(spark, 10, 20, "CAST(id AS INT) AS v"), shard_name)
        old_key = sparkpersist.parts(spark, shard_name).orderBy("min_time").first().key
        assert _in_every_mode(spark, session_conf, f"SELECT k FROM persist.{shard_name} WHERE v >= 15") == (
            [(k,) for k in range(15, 20)], 1)
        spark.sql(f"ALTER TABLE persist.{shard_name} RENAME COLUMN v TO amount")
        assert _in_every_mode(spark, session_conf, f"SELECT k FROM persist.{shard_name} WHERE amount >= 15") == (
            [(k,) for k in range(15, 20)], 1)
        assert spark.table(f"persist.{shard_name}").columns == ["k", "amount"]
    # Read alone, the part written before the rename still names the column `v`, with its id.
    arrow = pq.ParquetFile(root / shard_name / old_key).schema_arrow
    assert {f.name: int(f.metadata[b"PARQUET:field_id"]) for f in arrow} == {"k": 1, "v": 2}
    assert sorted(pq.read_table(root / shard_name / old_key).column("v").to_pylist()) == list(range(10))


def test_merge_schema_adds_columns_and_old_parts_are_all_null(spark, shard_name, session_conf) -> None:
    with session_conf("spark.sparkpersist.pushdown.mode", "on"):
        sparkpersist.write(_batch(spark, 0, 10, "CAST(id AS INT) AS v"), shard_name)
        wider = _batch(spark, 10, 14, "CAST(id AS INT) AS v", "IF(id % 2 = 0, 'even', 'odd') AS tag")
        with pytest.raises(InvalidInputError, match="column\\(s\\) 'tag' are not columns of the shard"):
            sparkpersist.write(wider, shard_name)
        sparkpersist.write(wider, shard_name, merge_schema=True)
        assert spark.table(f"persist.{shard_name}").columns == ["k", "v", "tag"]
        # A DataFrame without `v` writes it as nulls.
        sparkpersist.write(_batch(spark, 14, 16, "'late' AS tag"), shard_name, merge_schema=True)
        table = f"persist.{shard_name}"
        assert _in_every_mode(spark, session_conf, f"SELECT k, v FROM {table} WHERE tag = 'odd'") == (
            [(11, 11), (13, 13)], 1)
        assert _in_every_mode(spark, session_conf, f"SELECT count(*) FROM {table} WHERE tag IS NULL") == (
            [(10,)], 1)
        assert _in_every_mode(spark, session_conf, f"SELECT k FROM {table} WHERE v IS NULL") == (
            [(14,), (15,)], 1)
        assert _in_every_mode(spark, session_conf, f"SELECT k FROM {table} WHERE v < 12") == (
            [(k,) for k in range(12)], 2)


def test_dropped_then_added_column_never_shows_old_data(spark, shard_name, session_conf) -> None:
    with session_conf("spark.sparkpersist.pushdown.mode", "on"):
        sparkpersist.write(_batch(spark, 0, 10, "CAST(id AS INT) AS v"), shard_name)
        spark.sql(f"ALTER TABLE persist.{shard_name} DROP COLUMN v")
        spark.sql(f"ALTER TABLE persist.{shard_name} ADD COLUMN v INT")
        sparkpersist.write(_batch(spark, 10, 12, "CAST(id AS INT) AS v"), shard_name)
        table = f"persist.{shard_name}"
        assert _in_every_mode(spark, session_conf, f"SELECT k FROM {table} WHERE v = 5") == ([], 0)
        assert _in_every_mode(spark, session_conf, f"SELECT count(*) FROM {table} WHERE v IS NULL") == ([(10,)], 1)
        ids = {r.column: r.column_id for r in
               spark.sql(f"SELECT inline(column_stats) FROM persist.{shard_name}.parts").collect()}
        assert ids == {"k": 1, "v": 3}


def test_refused_type_change_says_what_to_do(spark, shard_name) -> None:
    sparkpersist.write(_batch(spark, 0, 2, "CAST(id AS INT) AS v"), shard_name)
    with pytest.raises(Exception, match="may only widen without changing any value"):
        spark.sql(f"ALTER TABLE persist.{shard_name} ALTER COLUMN v TYPE DOUBLE")
    spark.sql(f"ALTER TABLE persist.{shard_name} ALTER COLUMN v TYPE BIGINT")
    assert spark.sql(f"SELECT sum(v) FROM persist.{shard_name}").first()[0] == 1


def test_fields_inside_structs_follow_their_ids(spark, shard_name, root: Path, session_conf) -> None:
    table = f"persist.{shard_name}"
    row = "named_struct('a', CAST(id AS INT), 'b', CAST(id AS STRING)) AS s"
    with session_conf("spark.sparkpersist.pushdown.mode", "on"):
        sparkpersist.write(_batch(spark, 0, 10, row), shard_name)
        sparkpersist.write(_batch(spark, 10, 20, row), shard_name)
        old_key = sparkpersist.parts(spark, shard_name).orderBy("min_time").first().key
        spark.sql(f"ALTER TABLE {table} RENAME COLUMN s.a TO amount")
        spark.sql(f"ALTER TABLE {table} ALTER COLUMN s.amount TYPE BIGINT")
        spark.sql(f"ALTER TABLE {table} DROP COLUMN s.b")
        spark.sql(f"ALTER TABLE {table} ADD COLUMN s.b STRING")
        sparkpersist.write(_batch(spark, 20, 22, "named_struct('amount', id * 10, 'b', 'new') AS s"), shard_name)
        assert spark.sql(f"SELECT k, s FROM {table} WHERE k IN (4, 21)").orderBy("k").collect() == [
            (4, (4, None)), (21, (210, "new"))]
        assert _in_every_mode(spark, session_conf, f"SELECT k FROM {table} WHERE s.amount BETWEEN 12 AND 13") == (
            [(12,), (13,)], 1)
        assert _in_every_mode(spark, session_conf, f"SELECT count(*) FROM {table} WHERE s.b IS NULL") == (
            [(20,)], 2)
        assert _in_every_mode(spark, session_conf, f"SELECT k FROM {table} WHERE s.b = '5'") == ([], 0)
    # Read alone, the part written before the changes still names the fields as then, with their ids.
    struct = pq.ParquetFile(root / shard_name / old_key).schema_arrow.field("s").type
    assert {struct.field(i).name: int(struct.field(i).metadata[b"PARQUET:field_id"])
            for i in range(struct.num_fields)} == {"a": 3, "b": 4}


def test_merge_schema_adds_no_column_when_the_write_fails(spark, shard_name) -> None:
    sparkpersist.write(_batch(spark, 0, 2, "CAST(id AS INT) AS v"), shard_name)
    late = _batch(spark, 0, 2, "'x' AS tag", "CAST(0 AS BIGINT) AS at")
    with pytest.raises(Exception, match="every time must be >= the shard's upper"):
        sparkpersist.write(late, shard_name, time_col="at", merge_schema=True)
    assert spark.table(f"persist.{shard_name}").columns == ["k", "v"]
