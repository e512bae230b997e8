"""Shards read by an engine that is not this project's: pyiceberg over the Iceberg metadata a shard
writes beside its state log (``sparkpersist.iceberg = 'true'``, ``CALL persist.system.iceberg``).

Random seeded histories of INSERTs, DELETE, UPDATE, MERGE, compaction and gc run on a shard and,
statement by statement, on a plain Parquet copy of its rows written by Spark itself (the oracle of
tests/test_statements.py, read with Spark's Parquet filter pushdown off). At every version the
Iceberg metadata still holds, pyiceberg's scan (``StaticTable.from_metadata(...).scan(snapshot_id=...)``,
the snapshot found by its summary's ``sparkpersist.version``) must hold the oracle's rows of that
version and ``VERSION AS OF``'s, as multisets; with a row filter on the clustered key, pyiceberg
must plan fewer files than the shard has.
"""
from __future__ import annotations

import datetime as dt
import json
import math
import random
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterator, Optional
from urllib.parse import urlparse

import pyarrow as pa
import pytest
from pyiceberg.table import StaticTable
from pyiceberg.table.snapshots import Snapshot
from pyspark.sql import DataFrame, SparkSession

import sparkpersist
from sparkpersist import ShardTable
from test_connect import APPS, connect_url  # noqa: F401  (the Connect server fixture)
from test_statements import Oracle

VERSION_KEY = "sparkpersist.version"
COLUMNS = ["k", "i", "s", "d", "ts", "amount", "x"]
SCHEMA = "k BIGINT, i INT, s STRING, d DATE, ts TIMESTAMP, amount DECIMAL(12,2), x DOUBLE"
KEYS_PER_INSERT = 40


# ---- values compared across engines ---------------------------------------------------------

def canonical(value: Any) -> Any:
    """A value as a hashable, totally ordered stand-in that tells NaN, -0.0 and nulls apart."""
    if value is None:
        return ("null",)
    if isinstance(value, float):
        return ("double", "NaN" if math.isnan(value) else repr(value))
    if isinstance(value, dt.datetime):
        utc = value.astimezone(dt.timezone.utc).replace(tzinfo=None) if value.tzinfo else value
        return ("timestamp", utc.isoformat())
    if isinstance(value, dict):
        return ("struct",) + tuple((k, canonical(v)) for k, v in value.items())
    if isinstance(value, (dt.date, Decimal)):
        return (type(value).__name__, str(value))
    return (type(value).__name__, value)


def multiset(table: pa.Table) -> list[tuple]:
    """The rows of ``table`` as sorted canonical tuples, columns in its order."""
    return sorted((tuple(canonical(row[c]) for c in table.column_names) for row in table.to_pylist()), key=repr)


def spark_rows(df: DataFrame) -> list[tuple]:
    """A Spark DataFrame's rows, converted to Arrow by Spark (timestamps in the session's UTC)."""
    return multiset(df.toArrow())


# ---- what pyiceberg sees ---------------------------------------------------------------------

def iceberg_table(metadata_location: str) -> StaticTable:
    return StaticTable.from_metadata(metadata_location)


def snapshot_of(table: StaticTable, version: int) -> Optional[Snapshot]:
    """The Iceberg snapshot whose summary says it reflects shard ``version``."""
    found = [s for s in table.metadata.snapshots if s.summary is not None and s.summary[VERSION_KEY] == str(version)]
    assert len(found) <= 1, f"{len(found)} snapshots reflect shard version {version}"
    return found[0] if found else None


def reflected_versions(table: StaticTable) -> list[int]:
    """The shard versions the table's snapshots reflect, in snapshot order."""
    return [int(s.summary[VERSION_KEY]) for s in table.metadata.snapshots]


def local_path(uri: str) -> Path:
    parsed = urlparse(uri)
    assert parsed.scheme in ("", "file"), uri
    return Path(parsed.path)


def files_of(table: StaticTable, snapshot: Snapshot) -> set[str]:
    """Every data and delete file a snapshot's scan reads."""
    tasks = list(table.scan(snapshot_id=snapshot.snapshot_id).plan_files())
    return {t.file.file_path for t in tasks} | {d.file_path for t in tasks for d in t.delete_files}


# ---- a shard and its oracle, statement by statement ------------------------------------------

class History:
    """A shard with ``sparkpersist.iceberg = 'true'`` and its Parquet oracle, driven by one seeded random."""

    def __init__(self, spark: SparkSession, name: str, where: Path, seed: int, iceberg: bool = True) -> None:
        self.spark, self.name, self.rng = spark, name, random.Random(seed)
        self.shard = f"persist.{name}"
        self.oracle = Oracle(spark, where)
        self.next_key = 0
        self.oracles: dict[int, str] = {}  # shard version -> the oracle view of its rows
        self.retracted = False               # whether a statement retracted rows yet
        self.by_value: Optional[int] = None  # the first version a compaction after retractions committed
        props = "'order_by' = 'k'" + (", 'sparkpersist.iceberg' = 'true'" if iceberg else "")
        spark.sql(f"CREATE TABLE {self.shard} ({SCHEMA}) TBLPROPERTIES ({props})")
        spark.createDataFrame([], SCHEMA).createOrReplaceTempView(f"{name}_empty")
        self.oracle.replace(f"SELECT * FROM {name}_empty")  # version 0, the CREATE: no time is complete yet

    @property
    def version(self) -> int:
        return self.spark.sql(f"SELECT max(version) FROM {self.shard}.history").collect()[0][0]

    def record(self) -> None:
        self.oracles[self.version] = self.oracle.view

    def rows(self, n: int) -> list[tuple]:
        """``n`` rows of fresh keys: nulls, NaN, -0.0, dates, UTC timestamps and decimals."""
        rng, out = self.rng, []
        for k in range(self.next_key, self.next_key + n):
            x = rng.choice([float("nan"), -0.0, 0.0, None, rng.uniform(-1e6, 1e6), float(k)])
            out.append((k, rng.choice([None, rng.randint(-2**31, 2**31 - 1), k % 7]),
                        rng.choice([None, "", "a", "b", "c", "ünï", f"s{k}"]),
                        rng.choice([None, dt.date(1969, 12, 31) + dt.timedelta(days=k)]),
                        rng.choice([None, dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=97 * k)]),
                        rng.choice([None, Decimal(rng.randint(-10**11, 10**11)) / 100]),
                        x))
        self.next_key += n
        return out

    def insert(self) -> str:
        view = f"{self.name}_insert_{self.next_key}"
        self.spark.createDataFrame(self.rows(KEYS_PER_INSERT), SCHEMA).createOrReplaceTempView(view)
        self.spark.sql(f"INSERT INTO {self.shard} SELECT * FROM {view}")
        self.oracle.replace(f"SELECT * FROM {{o}} UNION ALL SELECT * FROM {view}")
        return f"insert {view}"

    def predicate(self) -> str:
        rng = self.rng
        first = rng.randrange(0, max(self.next_key, 1), KEYS_PER_INSERT)
        return rng.choice([
            f"k % {rng.randint(2, 7)} = {rng.randint(0, 1)}",                     # rows inside parts: positions
            f"k BETWEEN {first} AND {first + KEYS_PER_INSERT - 1}",                 # one insert's parts, whole
            f"s = '{rng.choice(['a', 'b', ''])}'",
            "isnan(x) OR x IS NULL",
            f"k < {rng.randint(0, max(self.next_key, 1))} AND i IS NOT NULL",
        ])

    def inserts(self, n: int) -> None:
        """``n`` INSERTs, each version recorded."""
        for _ in range(n):
            self.insert()
            self.record()

    def delete(self, condition: Optional[str] = None) -> str:
        condition = condition or self.predicate()
        self.spark.sql(f"DELETE FROM {self.shard} WHERE {condition}")
        self.oracle.replace(f"SELECT * FROM {{o}} WHERE NOT coalesce({condition}, false)")
        return f"delete {condition}"

    def update(self) -> str:
        condition = self.predicate()
        sets = {"s": "concat(s, '!')", "x": "x + 1.5", "i": "coalesce(i, 0) % 1000 + 1"}
        self.spark.sql(f"UPDATE {self.shard} SET {', '.join(f'{c} = {e}' for c, e in sets.items())} WHERE {condition}")
        chosen = f"coalesce({condition}, false)"
        self.oracle.replace("SELECT " + ", ".join(
            f"CASE WHEN {chosen} THEN {sets[c]} ELSE {c} END AS {c}" if c in sets else c for c in COLUMNS) + " FROM {o}")
        return f"update {condition}"

    def merge(self) -> str:
        """A MERGE that deletes, updates and inserts: source keys are unique, some old, some new."""
        rng = self.rng
        old = rng.sample(range(self.next_key), min(self.next_key, 12)) if self.next_key else []
        new = self.rows(6)
        source = [(k, rng.choice(["d", "u"]), f"m{k}", rng.choice([None, -0.0, 2.5])) for k in old] + \
                 [(r[0], "i", r[2], r[6]) for r in new]
        view = f"{self.name}_merge_{self.next_key}"
        self.spark.createDataFrame(source, "k BIGINT, op STRING, s STRING, x DOUBLE").createOrReplaceTempView(view)
        news = f"{view}_rows"
        self.spark.createDataFrame(new, SCHEMA).createOrReplaceTempView(news)
        rest = ", ".join(f"n.{c}" for c in COLUMNS if c not in ("k", "s", "x"))
        self.spark.sql(f"""MERGE INTO {self.shard} t USING (SELECT m.*, {rest}
                                                          FROM {view} m LEFT JOIN {news} n ON m.k = n.k) s
                           ON t.k = s.k
                           WHEN MATCHED AND s.op = 'd' THEN DELETE
                           WHEN MATCHED THEN UPDATE SET s = s.s, x = s.x
                           WHEN NOT MATCHED AND s.op = 'i' THEN INSERT ({', '.join(COLUMNS)})
                             VALUES ({', '.join('s.' + c for c in COLUMNS)})""")
        kept = ", ".join(f"o.{c}" for c in COLUMNS)
        self.oracle.replace(
            f"SELECT {kept} FROM {{o}} o LEFT ANTI JOIN {view} m ON o.k = m.k "
            f"UNION ALL SELECT {', '.join('m.' + c if c in ('s', 'x') else 'o.' + c for c in COLUMNS)} "
            f"FROM {{o}} o JOIN {view} m ON o.k = m.k WHERE m.op = 'u' "
            f"UNION ALL SELECT * FROM {news}")
        return f"merge {len(old)} old keys, {len(new)} new"

    def compact(self) -> str:
        [summary] = self.spark.sql(f"CALL persist.system.compact(shard => '{self.name}', fan_in => 2)").collect()
        return f"compact {summary.batches_before} -> {summary.batches_after} batches"

    def step(self, compaction: bool = True) -> str:
        """One random statement (a compaction too when ``compaction``), applied to the shard and to the oracle;
        the version it committed recorded."""
        actions = [self.insert, self.delete, self.update, self.merge] + ([self.compact] if compaction else [])
        action = self.rng.choices(actions, weights=[4, 2, 2, 2, 1][:len(actions)])[0] if self.next_key else self.insert
        done = action()
        if action != self.insert:
            self.retracted = self.retracted or action != self.compact
        if action == self.compact and self.retracted and self.by_value is None:
            self.by_value = self.version  # a compaction over retractions: matched by value from here on
        self.record()
        return f"v{self.version}: {done}"

    def gc(self, keep_versions: int) -> dict[str, Any]:
        return sparkpersist.gc(self.spark, self.name, keep_versions=keep_versions, grace_ms=0)

    def as_of(self, version: int) -> list[tuple]:
        return spark_rows(self.spark.sql(f"SELECT * FROM {self.shard} VERSION AS OF {version}"))

    def expected(self, version: int) -> list[tuple]:
        return spark_rows(self.spark.table(self.oracles[version]))


@pytest.fixture
def plain_parquet(session_conf) -> Iterator[None]:
    # Spark's Parquet filter pushdown drops -0.0 for `x = 0.0`: the copy is read without it.
    with session_conf("spark.sql.parquet.filterPushdown", "false"):
        yield


def sync(history: History) -> Any:
    """``ShardTable.syncIceberg()``'s row for the shard (nothing to write when the property already wrote it)."""
    return ShardTable.forName(history.spark, history.name).syncIceberg()


def metadata_location(history: History) -> str:
    """The newest metadata file of a shard whose every version Iceberg can express."""
    row = sync(history)
    assert (row.note, row.shard_version) == (None, history.version), row
    return row.metadata_location


def shown_soon(location: Path, version: int, polls: int = 600) -> StaticTable:
    """The shard's Iceberg table, through ``version-hint.text``, once its newest snapshot shows ``version``: the
    background writer's work, polled (every 0.1 s, at most ``polls`` times) as another engine would read it."""
    hint = location / "metadata" / "version-hint.text"
    for _ in range(polls):
        # The hint is rewritten in place after each metadata file: a reader may find it empty for a moment.
        if hint.exists() and hint.read_text().strip().isdigit():
            table = iceberg_table(str(location))
            newest = table.current_snapshot()
            if newest is not None and int(newest.summary[VERSION_KEY]) >= version:
                return table
        time.sleep(0.1)
    raise AssertionError(f"the Iceberg metadata of {location} does not show version {version} after {polls} polls")


def check_versions(history: History, table: StaticTable, versions: list[int]) -> int:
    """pyiceberg's rows of each version's snapshot equal the oracle's and ``VERSION AS OF``'s; returns how many."""
    checked = 0
    for version in versions:
        snapshot = snapshot_of(table, version)
        assert snapshot is not None, f"no snapshot reflects shard version {version}: {reflected_versions(table)}"
        arrow = table.scan(snapshot_id=snapshot.snapshot_id).to_arrow()
        assert arrow.column_names == COLUMNS, "only the shard's own columns, no time/diff"
        expected = history.expected(version)
        assert multiset(arrow) == expected, f"pyiceberg at shard version {version}"
        assert history.as_of(version) == expected, f"VERSION AS OF {version}"
        checked += 1
    return checked


@pytest.mark.parametrize("seed", [53, 1953, 20261128])
def test_random_dml_histories_read_through_pyiceberg_equal_plain_spark_at_every_version(
        spark: SparkSession, shard_name: str, tmp_path: Path, plain_parquet, seed: int) -> None:
    """INSERT, DELETE, UPDATE and MERGE retract by position only: every version has its snapshot."""
    history = History(spark, shard_name, tmp_path, seed)
    done = [history.step(compaction=False) for _ in range(12)]
    table = iceberg_table(metadata_location(history))
    versions = sorted(history.oracles)
    assert reflected_versions(table) == versions, done
    assert check_versions(history, table, versions) == len(versions), done
    assert table.current_snapshot() == snapshot_of(table, history.version)


def iceberg_history(history: History) -> dict[int, tuple[Optional[int], Optional[str]]]:
    """The history's Iceberg columns: version -> (icebergSnapshotId, icebergNote)."""
    return {r.version: (r.icebergSnapshotId, r.icebergNote)
            for r in ShardTable.forName(history.spark, history.name).history().collect()}


@pytest.mark.parametrize("seed", [7, 2026])
def test_random_histories_with_compaction_read_through_pyiceberg_at_every_version(
        spark: SparkSession, shard_name: str, tmp_path: Path, plain_parquet, seed: int) -> None:
    """A compaction that merges retractions with the rows they cancel (or rewrites a part positions name) leaves
    retractions by value: they are matched to rows by value and deleted by position, so every version has its
    snapshot, and the history names it."""
    history = History(spark, shard_name, tmp_path, seed)
    done = [history.step() for _ in range(14)]
    assert any("compact" in d for d in done), done
    assert history.by_value is not None, ("no compaction after a retraction", done)
    table = iceberg_table(metadata_location(history))
    # None skipped: the versions of the steps, and those of a compaction's earlier rounds (the same rows).
    every = list(range(1, history.version + 1))
    assert reflected_versions(table) == every, done
    versions = sorted(history.oracles)
    assert check_versions(history, table, versions) == len(versions), done
    assert iceberg_history(history) == {0: (None, "version 0 creates the shard: it has no complete time to show"),
                                        **{v: (snapshot_of(table, v).snapshot_id, None) for v in every}}
    by_value = [v for v in every if any(Path(d.file_path).name.startswith("values-") for t in table.scan(
        snapshot_id=snapshot_of(table, v).snapshot_id).plan_files() for d in t.delete_files)]
    assert by_value, done  # versions after the compaction over retractions: shown through deletes found by value


def live_parts(spark: SparkSession, shard: str) -> int:
    return spark.sql(f"SELECT count(*) FROM {shard}.parts").collect()[0][0]


def test_a_row_filter_on_the_clustered_key_plans_fewer_files_than_the_shard_has(
        spark: SparkSession, shard_name: str, tmp_path: Path, plain_parquet) -> None:
    history = History(spark, shard_name, tmp_path, seed=7)
    history.inserts(5)
    history.delete("k % 3 = 0")  # position deletes in every part
    history.record()
    table = iceberg_table(metadata_location(history))
    parts = live_parts(spark, history.shard)
    everything = list(table.scan().plan_files())
    assert len(everything) == parts >= 5
    assert any(task.delete_files for task in everything), "the DELETE's rows are position deletes"

    for condition in ["k >= 40 AND k < 80", "k = 123", f"ts < '{dt.datetime(2026, 1, 1, 1, tzinfo=dt.timezone.utc).isoformat()}'"]:
        scan = table.scan(row_filter=condition)
        planned = list(scan.plan_files())
        assert 0 < len(planned) < parts, condition
        spark_condition = condition.replace("ts < '", "ts < TIMESTAMP '")
        assert multiset(scan.to_arrow()) == spark_rows(spark.table(history.oracle.view).where(spark_condition))


def test_gc_keeps_every_file_of_every_snapshot_the_iceberg_metadata_still_holds(
        spark: SparkSession, shard_name: str, tmp_path: Path, plain_parquet) -> None:
    history = History(spark, shard_name, tmp_path, seed=11)
    history.inserts(4)
    done = [history.compact()]  # replaces the inserts' parts: gc deletes them
    history.record()
    done += [history.step(compaction=False) for _ in range(4)]
    before = iceberg_table(metadata_location(history))
    summary = history.gc(keep_versions=2)
    assert summary["parts_deleted"] > 0, (summary, done)

    after = iceberg_table(str(local_path(before.metadata_location).parent.parent))  # via version-hint.text
    versions = reflected_versions(after)
    assert versions[-1] == history.version
    for snapshot in after.metadata.snapshots:
        missing = [f for f in files_of(after, snapshot) if not local_path(f).exists()]
        assert not missing, f"snapshot of version {snapshot.summary[VERSION_KEY]} names deleted files {missing}"
    newest = sorted(history.oracles)[-2:]
    assert check_versions(history, after, newest) == 2, done
    dropped = set(reflected_versions(before)) - set(versions)
    assert dropped and max(dropped) < min(newest), (dropped, versions)


def test_alter_table_turns_the_metadata_on_for_an_existing_shard(
        spark: SparkSession, root: Path, shard_name: str, tmp_path: Path, plain_parquet) -> None:
    history = History(spark, shard_name, tmp_path, seed=17, iceberg=False)
    for _ in range(2):
        history.step()
    location = root / shard_name
    assert (location / "state").is_dir()
    assert not (location / "metadata").exists()

    spark.sql(f"ALTER TABLE {history.shard} SET TBLPROPERTIES ('sparkpersist.iceberg' = 'true')")
    history.step()
    table = shown_soon(location, history.version)  # written after the commit, in the background: no procedure called
    assert reflected_versions(table)[-1] == history.version
    assert check_versions(history, table, [history.version]) == 1


def test_the_metadata_is_written_in_the_background_after_the_statement_returns(
        spark: SparkSession, root: Path, shard_name: str, tmp_path: Path, plain_parquet, session_conf) -> None:
    """``spark.sparkpersist.iceberg.async`` (on by default): each commit only asks the driver's background writer,
    which soon writes the snapshot of every version committed since; pyiceberg then reads each of them right."""
    assert spark.conf.get("spark.sparkpersist.iceberg.async", "true") == "true"
    history = History(spark, shard_name, tmp_path, seed=29)
    for _ in range(4):
        history.step(compaction=False)
    table = shown_soon(root / shard_name, history.version)
    assert reflected_versions(table) == sorted(history.oracles)
    assert check_versions(history, table, sorted(history.oracles)) == len(history.oracles)
    # Off, read at each commit: the statement returns with its snapshot written.
    with session_conf("spark.sparkpersist.iceberg.async", "false"):
        history.step(compaction=False)
        current = iceberg_table(str(root / shard_name)).current_snapshot()
        assert int(current.summary[VERSION_KEY]) == history.version


def test_the_procedure_writes_the_metadata_of_a_shard_without_the_property_on_demand(
        spark: SparkSession, root: Path, shard_name: str, tmp_path: Path, plain_parquet) -> None:
    history = History(spark, shard_name, tmp_path, seed=19, iceberg=False)
    history.inserts(1)
    history.delete("k % 2 = 0")
    history.record()
    table = ShardTable.forName(spark, shard_name)
    first = table.syncIceberg()
    assert first.asDict().keys() == {"shard_version", "snapshot_id", "metadata_location", "data_files",
                                      "delete_files", "snapshots_written", "note"}
    assert (first.shard_version, first.note) == (history.version, None)
    # A new metadata starts at the shard's newest version: one snapshot; the DELETE's rows as position deletes.
    assert first.snapshots_written == 1
    tasks = list(iceberg_table(first.metadata_location).scan().plan_files())
    assert (first.data_files, first.delete_files) == (len(tasks), len({d.file_path for t in tasks for d in t.delete_files}))
    assert first.data_files == live_parts(spark, history.shard) and first.delete_files > 0
    assert check_versions(history, iceberg_table(first.metadata_location), [history.version]) == 1

    history.inserts(1)  # no property: the commit leaves the metadata as it was
    assert local_path(iceberg_table(str(root / shard_name)).metadata_location) == \
        local_path(first.metadata_location)
    second = table.syncIceberg()
    assert (second.shard_version, second.snapshots_written) == (history.version, 1)
    assert second.snapshot_id != first.snapshot_id
    assert check_versions(history, iceberg_table(second.metadata_location), [first.shard_version, history.version]) == 2
    again = table.syncIceberg()
    assert (again.snapshots_written, again.snapshot_id, again.metadata_location) == \
        (0, second.snapshot_id, second.metadata_location)


def test_a_shard_at_a_path_syncs_through_for_path(spark: SparkSession, tmp_path: Path) -> None:
    location = tmp_path / "path shard"
    spark.sql(f"CREATE TABLE persist.`{location}` (k BIGINT, s STRING) TBLPROPERTIES ('order_by' = 'k')")
    spark.sql(f"INSERT INTO persist.`{location}` VALUES (1, 'a'), (2, NULL), (3, 'c')")
    row = ShardTable.forPath(spark, str(location)).syncIceberg()
    assert row.note is None and row.shard_version == 1
    assert multiset(iceberg_table(str(location)).scan().to_arrow()) == \
        spark_rows(spark.sql("SELECT * FROM VALUES (1L, 'a'), (2L, NULL), (3L, 'c') AS t(k, s)"))


def test_a_shard_with_a_struct_column_has_metadata_without_snapshots_and_the_note_says_why(
        spark: SparkSession, shard_name: str) -> None:
    spark.sql(f"CREATE TABLE persist.{shard_name} (k BIGINT, st STRUCT<a: INT, b: STRING>) "
              "TBLPROPERTIES ('sparkpersist.iceberg' = 'true')")
    spark.sql(f"INSERT INTO persist.{shard_name} VALUES (1, named_struct('a', 1, 'b', 'x'))")  # its commit is kept
    row = ShardTable.forName(spark, shard_name).syncIceberg()
    assert (row.shard_version, row.snapshot_id, row.snapshots_written, row.data_files) == (None, None, 0, 0)
    assert row.note == ("shard version 1 is not shown: the shard's schema has no Iceberg form: type "
                        "STRUCT<a: INT, b: STRING> has none in this release (its columns are of primitive types only)")
    assert iceberg_table(row.metadata_location).metadata.snapshots == []
    assert spark.table(f"persist.{shard_name}").count() == 1


def test_the_procedure_names_a_missing_shard(spark: SparkSession) -> None:
    with pytest.raises(sparkpersist.ShardNotFoundError, match=r"PERSIST_SHARD_NOT_FOUND.*'no_such_shard_for_iceberg' "
                                                             r"does not exist.*Create it first"):
        with sparkpersist.translated_errors():
            spark.sql("CALL persist.system.iceberg(shard => 'no_such_shard_for_iceberg')").collect()


DOC = Path(__file__).resolve().parent.parent / "docs" / "interop.md"


def worked_example() -> str:
    """The Python block under docs/interop.md's heading "A worked example"."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("\n## A worked example"):]
    return section[section.index("```python\n") + len("```python\n"):section.index("\n```\n")]


def test_the_worked_example_of_docs_interop_runs_and_reads_what_spark_reads(
        spark: SparkSession, plain_parquet) -> None:
    scope: dict[str, Any] = {"spark": spark}
    exec(compile(worked_example(), str(DOC), "exec"), scope)
    assert scope["synced"].snapshots_written == 0 and scope["synced"].note is None
    assert multiset(scope["newest"]) == spark_rows(spark.sql("""SELECT * FROM VALUES
        (1L, 'DE', 12.50BD, TIMESTAMP '2026-11-01 10:00:00'), (2L, 'FR', 14.50BD, TIMESTAMP '2026-11-01 11:30:00'),
        (4L, 'NL', 99.99BD, TIMESTAMP '2026-11-03 18:00:00'), (5L, 'FR', 2.00BD, TIMESTAMP '2026-11-04 08:45:00')
        AS t(id, country, amount, placed)""").selectExpr("id", "country", "CAST(amount AS DECIMAL(10,2)) AS amount",
                                                           "placed"))
    assert multiset(scope["as_of_first"]) == spark_rows(spark.sql("SELECT * FROM persist.orders VERSION AS OF 1"))
    assert sorted(r[0][1] for r in multiset(scope["as_of_first"])) == [1, 2, 3]
    assert 0 < scope["late_files"] < scope["all_files"]
    assert scope["by_country"].rows() == [("DE", Decimal("12.50")), ("FR", Decimal("16.50")),
                                          ("NL", Decimal("99.99"))]
    assert scope["biggest"] == [(4, Decimal("99.99"))]


@pytest.fixture(scope="module")
def over_connect(connect_url: str) -> dict[str, Any]:  # noqa: F811
    done = subprocess.run([sys.executable, str(APPS / "iceberg_connect.py"), connect_url],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("shard", ["acc_iceberg", "acc_plain"])
def test_sync_iceberg_over_spark_connect(spark: SparkSession, over_connect: dict[str, Any], shard: str) -> None:
    assert over_connect["connect"].startswith("pyspark.sql.connect")
    row = over_connect[shard]
    # CREATE is version 0; two INSERTs, the DELETE and the UPDATE are versions 1 to 4.
    assert (row["shard_version"], row["note"]) == (4, None), row
    assert row["snapshots_written"] == (0 if shard == "acc_iceberg" else 1)
    table = iceberg_table(row["metadata_location"])
    assert table.current_snapshot().snapshot_id == row["snapshot_id"]
    assert reflected_versions(table) == ([1, 2, 3, 4] if shard == "acc_iceberg" else [4])
    assert multiset(table.scan().to_arrow()) == spark_rows(spark.sql(
        "SELECT * FROM VALUES (1, 'a', 10.0D), (3, NULL, -0.0D), (4, 'D', double('NaN')), (5, 'E', 50.0D) "
        "AS t(id, tag, bal)"))


def test_an_update_write_retracting_by_value_is_shown_and_a_row_retention_summed_is_not(
        spark: SparkSession, shard_name: str, tmp_path: Path, plain_parquet) -> None:
    history = History(spark, shard_name, tmp_path, seed=23)
    history.inserts(1)
    first = history.version
    # An update write: row k = 3 retracted by value (diff -1) and written again with a new s.
    [old] = [r for r in spark.table(history.oracle.view).collect() if r.k == 3]
    upper = spark.sql(f"SELECT max(upper) FROM {history.shard}.batches").collect()[0][0]
    changes = spark.createDataFrame([tuple(old) + (upper, -1), tuple(old)[:2] + ("new",) + tuple(old)[3:] + (upper, 1)],
                                    f"{SCHEMA}, t BIGINT, diff BIGINT")
    sparkpersist.write(changes, shard_name, time_col="t", diff_col="diff")
    history.oracle.replace("SELECT k, i, CASE WHEN k = 3 THEN 'new' ELSE s END AS s, d, ts, amount, x FROM {o}")
    history.record()
    table = iceberg_table(metadata_location(history))
    assert reflected_versions(table) == [first, history.version]
    assert check_versions(history, table, [first, history.version]) == 2

    # The same row again (a second copy), then a retention compaction that sums both copies into one row of
    # diff 2, which one row of a data file cannot hold: that version is not shown, and both the procedure
    # and the history say why.
    again = spark.createDataFrame([tuple(old)[:2] + ("new",) + tuple(old)[3:] + (upper + 1, 1)],
                                  f"{SCHEMA}, t BIGINT, diff BIGINT")
    sparkpersist.write(again, shard_name, time_col="t", diff_col="diff")
    history.oracle.replace("SELECT * FROM {o} UNION ALL SELECT * FROM {o} WHERE k = 3")
    history.record()
    shown = history.version
    history.inserts(1)  # a later batch, so that retention reaches the copies
    spark.sql(f"CALL persist.system.compact(shard => '{shard_name}', retention_ms => 0)")
    history.record()
    row = sync(history)
    why = (f"version {history.version} retracts rows by value, and a row it keeps 2 times is held by 0 rows of "
           "multiplicity 1 (a compaction consolidated its copies into a row of multiplicity above 1, which data "
           "files cannot repeat)")
    assert (row.shard_version, row.note) == (history.version - 1, f"shard version {history.version} is not shown: {why}")
    table = iceberg_table(row.metadata_location)
    # The compaction's earlier rounds (versions of their own, the same rows) are shown; its last round is not.
    assert reflected_versions(table) == list(range(first, row.shard_version + 1))
    for version in [first, first + 1, shown, shown + 1]:  # (VERSION AS OF refuses them now: retention moved since)
        assert multiset(table.scan(snapshot_id=snapshot_of(table, version).snapshot_id).to_arrow()) == \
            history.expected(version), version
    assert iceberg_history(history)[history.version] == (None, why)
    assert history.as_of(history.version) == history.expected(history.version)


def test_a_property_value_other_than_true_or_false_is_refused(spark: SparkSession, shard_name: str) -> None:
    with pytest.raises(sparkpersist.InvalidInputError, match=r"table property 'sparkpersist.iceberg' is 'true' .* "
                                                           r"or 'false', not 'yes'"):
        with sparkpersist.translated_errors():
            spark.sql(f"CREATE TABLE persist.{shard_name} (k BIGINT) TBLPROPERTIES ('sparkpersist.iceberg' = 'yes')")
