"""Every error condition of sparkpersist, each triggered as a user would: shared by ``tests/test_errors.py``
(classic session and SQL over the Thrift server) and ``errors_client.py`` (a Spark Connect client).

A case is SQL statements (``{s}`` is the case's shard, ``{S}`` the same name in capitals): every one but the
last succeeds, the last fails. A case may damage the shard's files before its last statement (as a disk or
another program could), which then runs in a new session (one that has not read the shard yet), or run
Python (``run``) where no SQL statement reaches the error.
"""
from __future__ import annotations

import json
import struct
import threading
import time
import uuid
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from pyspark.sql import SparkSession

import sparkpersist

# Conditions no client can trigger, with why and where they are raised instead.
NOT_FROM_A_CLIENT = {
    "PERSIST_BATCH_REPLACED": "drop_batch racing a compaction that replaced its batch: nothing a client runs can "
                              "hold drop_batch between its read and its commit (CompactionSuite raises it)",
    "PERSIST_NO_ATOMIC_COMMIT": "a store without an atomic create-if-absent: tests/test_s3a.py raises it from PySpark "
                                "against moto's S3 server with conditional writes off",
    "PERSIST_NAMESPACE_NOT_EMPTY": "DROP NAMESPACE checks the namespace is empty itself and raises Spark's "
                                   "SCHEMA_NOT_EMPTY (a case below); ShardLocationsSuite raises it from the store",
    "PERSIST_NAMESPACE_EXISTS": "CREATE NAMESPACE of an existing namespace raises Spark's SCHEMA_ALREADY_EXISTS, the "
                                "catalog contract (a case below); ShardStoreNamespacesSuite raises it from the store",
    "PERSIST_SHARD_EXISTS": "two creates of one shard racing; one at a time, CREATE TABLE raises Spark's "
                            "TABLE_OR_VIEW_ALREADY_EXISTS (ShardExistsError too, a case below); ShardStoreSuite raises it",
    "PERSIST_SOFT_PUSHDOWN_VIOLATION": "a part whose statistics lie (a pruning bug); state files are checksummed, so a "
                                       "client cannot make one (PruningSuite builds one and raises it)",
}


@dataclass(frozen=True)
class Case:
    condition: str
    error: str  # the class of sparkpersist that the error is raised as
    sql: tuple[str, ...] = ()
    damage: Optional[Callable[[Path, str], None]] = None
    run: Optional[Callable[[SparkSession, str, Path, Callable[[], SparkSession]], None]] = None
    isolated: bool = False  # the whole case runs in a session of its own (it sets session configs)
    surfaces: frozenset[str] = field(default_factory=lambda: frozenset({"classic", "connect", "thrift"}))

    @property
    def name(self) -> str:
        return self.condition.lower().replace(".", "_").replace("persist_", "") + "_" + self.error.lower()[:6]


# ---- damage: what a disk or another program does to a shard's files ----

def _state_version(root: Path, shard: str, seq_no: int) -> Path:
    return root / shard / "state" / f"{seq_no:020d}.json"


def _newest_state_version(root: Path, shard: str) -> Path:
    return sorted((root / shard / "state").glob("[0-9]*.json"))[-1]


def _a_part(root: Path, shard: str) -> Path:
    return sorted((root / shard / "parts").rglob("*.parquet"))[0]


def _without_crc(path: Path) -> None:
    path.with_name(f".{path.name}.crc").unlink(missing_ok=True)


def _cut_state(root: Path, shard: str) -> None:
    version = _newest_state_version(root, shard)
    version.write_bytes(version.read_bytes()[:40])


def _newer_state(root: Path, shard: str) -> None:
    version = _newest_state_version(root, shard)
    # The JSON without its checksum frame (files written before the frame still open), of format 99.
    body = json.loads(version.read_text().strip().rsplit("\n", 1)[0])
    body["formatVersion"] = 99
    version.write_text(json.dumps(body))
    _without_crc(version)


def _remove_part(root: Path, shard: str) -> None:
    _a_part(root, shard).unlink()


def _part_version(value: bytes) -> Callable[[Path, str], None]:
    def damage(root: Path, shard: str) -> None:
        import pyarrow.parquet as pq

        part = _a_part(root, shard)
        table = pq.read_table(part)
        metadata = dict(table.schema.metadata or {})
        metadata[b"sparkpersist.format.version"] = value
        pq.write_table(table.replace_schema_metadata(metadata), part)
        _without_crc(part)
    return damage


def _positions_file(root: Path, shard: str) -> Path:
    parts = root / shard / "parts"
    [found] = [p for p in parts.rglob("*") if p.is_file() and p.read_bytes()[:5] == b"SPPOS"]
    return found


def _cut_positions(root: Path, shard: str) -> None:
    path = _positions_file(root, shard)
    path.write_bytes(path.read_bytes()[:-3])
    _without_crc(path)


def _newer_positions(root: Path, shard: str) -> None:
    """Format 2 in a file whose checksum (CRC-32 of every byte before it, as a big-endian long) still holds."""
    path = _positions_file(root, shard)
    body = bytearray(path.read_bytes()[:-8])
    body[5:9] = struct.pack(">i", 2)
    path.write_bytes(bytes(body) + struct.pack(">q", zlib.crc32(bytes(body))))
    _without_crc(path)


# ---- races: a statement held between its read and its commit while another commits ----

class Gate:
    """Holds a Spark job inside a Python UDF (the worker waits for a file) until the test opens the gate."""

    def __init__(self, spark: SparkSession, directory: Path) -> None:
        self.started = directory / f"gate-{uuid.uuid4().hex}.started"
        self.open = self.started.with_suffix(".open")
        started, opened = str(self.started), str(self.open)

        def gate(x: int) -> int:
            import os
            import time as t
            open(started, "w").close()
            for _ in range(6000):  # at most 10 minutes, then the job goes on and the test fails on its result
                if os.path.exists(opened):
                    break
                t.sleep(0.1)
            return x

        self.name = f"gate_{uuid.uuid4().hex[:8]}"
        spark.udf.register(self.name, gate, "int")

    def run_while_held(self, statement: Callable[[], None], meanwhile: Callable[[], None]) -> Optional[BaseException]:
        """Runs ``statement`` in a thread; once its job reached the gate, runs ``meanwhile`` and opens it.
        Returns what ``statement`` raised (``None`` if nothing)."""
        raised: list[BaseException] = []

        def target() -> None:
            try:
                statement()
            except BaseException as e:  # noqa: B036 - handed to the caller
                raised.append(e)
        thread = threading.Thread(target=target)
        thread.start()
        try:
            for _ in range(6000):
                if self.started.exists() or not thread.is_alive():
                    break
                time.sleep(0.1)
            assert self.started.exists(), f"the statement never reached the gate: {raised}"
            meanwhile()
        finally:
            self.open.touch()
            thread.join(600)
        return raised[0] if raised else None


def _raise(error: Optional[BaseException]) -> None:
    if error is None:
        raise AssertionError("the statement held at the gate succeeded")
    raise error


def _upper_mismatch(spark: SparkSession, shard: str, root: Path, fresh: Callable[[], SparkSession]) -> None:
    spark.sql(f"CREATE TABLE persist.{shard} (id INT, t BIGINT)")
    gate = Gate(spark, root)
    rows = spark.sql(f"SELECT {gate.name}(id) AS id, 5L AS t FROM VALUES (1) AS v(id)")
    _raise(gate.run_while_held(
        lambda: sparkpersist.write(rows, shard, time_col="t"),
        lambda: spark.sql(f"INSERT INTO persist.{shard} VALUES (2, 0)").collect()))


def _concurrent_update(spark: SparkSession, shard: str, root: Path, fresh: Callable[[], SparkSession]) -> None:
    spark.sql(f"CREATE TABLE persist.{shard} (id INT)")
    spark.sql(f"INSERT INTO persist.{shard} VALUES (1), (2), (3)").collect()
    gate = Gate(spark, root)
    _raise(gate.run_while_held(
        lambda: spark.sql(f"DELETE FROM persist.{shard} WHERE {gate.name}(id) = 2").collect(),
        lambda: spark.sql(f"DELETE FROM persist.{shard} WHERE id = 1").collect()))


def _schema_changed(spark: SparkSession, shard: str, root: Path, fresh: Callable[[], SparkSession]) -> None:
    spark.sql(f"CREATE TABLE persist.{shard} (id INT)")
    gate = Gate(spark, root)
    _raise(gate.run_while_held(
        lambda: spark.sql(f"INSERT INTO persist.{shard} SELECT {gate.name}(id) FROM VALUES (1) AS v(id)").collect(),
        lambda: spark.sql(f"ALTER TABLE persist.{shard} ADD COLUMN extra STRING").collect()))


# ---- streams ----

def _stream_once(spark: SparkSession, shard: str, checkpoint: Path) -> None:
    query = (spark.readStream.table(f"persist.{shard}").writeStream.format("noop")
             .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())
    query.awaitTermination()
    if query.exception() is not None:
        raise query.exception()


def _stream_of_other_shard(spark: SparkSession, shard: str, root: Path, fresh: Callable[[], SparkSession]) -> None:
    checkpoint = root / f"{shard}.checkpoint"
    spark.sql(f"CREATE TABLE persist.{shard} (id INT)")
    spark.sql(f"INSERT INTO persist.{shard} VALUES (1)").collect()
    _stream_once(spark, shard, checkpoint)
    spark.sql(f"DROP TABLE persist.{shard}")
    spark.sql(f"CREATE TABLE persist.{shard} (id INT)")
    spark.sql(f"INSERT INTO persist.{shard} VALUES (2)").collect()
    _stream_once(spark, shard, checkpoint)


def _stream_below_since(spark: SparkSession, shard: str, root: Path, fresh: Callable[[], SparkSession]) -> None:
    checkpoint = root / f"{shard}.checkpoint"
    spark.sql(f"CREATE TABLE persist.{shard} (id INT)")
    spark.sql(f"INSERT INTO persist.{shard} VALUES (1)").collect()
    _stream_once(spark, shard, checkpoint)
    for i in range(2):
        spark.sql(f"INSERT INTO persist.{shard} VALUES ({i + 2})").collect()
    sparkpersist.compact(spark, shard, retention_ms=0)
    _stream_once(spark, shard, checkpoint)


def _stream_schema_changed(spark: SparkSession, shard: str, root: Path, fresh: Callable[[], SparkSession]) -> None:
    spark.sql(f"CREATE TABLE persist.{shard} (id INT, tag STRING)")
    spark.sql(f"INSERT INTO persist.{shard} VALUES (1, 'a')").collect()
    query = (spark.readStream.table(f"persist.{shard}").writeStream.format("noop")
             .option("checkpointLocation", str(root / f"{shard}.checkpoint")).start())
    try:
        query.processAllAvailable()
        spark.sql(f"ALTER TABLE persist.{shard} DROP COLUMN tag")
        spark.sql(f"INSERT INTO persist.{shard} VALUES (2)").collect()
        query.processAllAvailable()
    finally:
        query.stop()


# ---- path shards: format("persist") and persist.`<path>` ----

def _missing_path_shard(spark: SparkSession, shard: str, root: Path, fresh: Callable[[], SparkSession]) -> None:
    spark.read.format("persist").load(str(root / f"{shard}_nowhere")).collect()


def _path_exists(spark: SparkSession, shard: str, root: Path, fresh: Callable[[], SparkSession]) -> None:
    rows = spark.sql("SELECT 1 AS id")
    rows.write.format("persist").save(str(root / f"{shard}_at"))
    rows.write.format("persist").save(str(root / f"{shard}_at"))  # save mode errorifexists


def _occupied_location(spark: SparkSession, shard: str, root: Path, fresh: Callable[[], SparkSession]) -> None:
    occupied = root / f"{shard}_occupied"
    occupied.mkdir(parents=True, exist_ok=True)
    (occupied / "notes.txt").write_text("not a shard")
    spark.sql(f"CREATE TABLE persist.`{occupied}` (id INT)").collect()


# A shard of one part read (after the damage); one whose DELETE wrote a positions file, read.
ONE_ROW = ("CREATE TABLE persist.{s} (id INT)", "INSERT INTO persist.{s} VALUES (1)", "SELECT * FROM persist.{s}")
AFTER_A_DELETE = ("CREATE TABLE persist.{s} (id INT)", "INSERT INTO persist.{s} VALUES (1), (2), (3)",
                  "DELETE FROM persist.{s} WHERE id = 2", "SELECT * FROM persist.{s}")
NOT_SQL = frozenset({"classic", "connect"})  # Python steps (threads, streams): no Thrift client runs them

CASES: list[Case] = [
    Case("PERSIST_BATCH_NOT_FOUND", "NotFoundError",
         ("CREATE TABLE persist.{s} (id INT)", "CALL persist.system.drop_batch('{s}', 'no-such-batch')")),
    Case("PERSIST_CONCURRENT_SHARD_UPDATE", "ConcurrentShardUpdateError", run=_concurrent_update, surfaces=NOT_SQL),
    Case("PERSIST_CORRUPT_STATE", "CorruptStateError",
         ONE_ROW, damage=_cut_state),
    Case("PERSIST_DAMAGED_POSITIONS_FILE", "CorruptStateError",
         AFTER_A_DELETE, damage=_cut_positions),
    Case("PERSIST_INCONSISTENT_UPDATES", "InconsistentUpdatesError",
         ("CREATE TABLE persist.{s} (id INT)",
          "CREATE OR REPLACE TEMPORARY VIEW {s}_retraction AS SELECT 7 AS id, 5L AS t, -1L AS d",
          "CALL persist.system.write(shard => '{s}', source => '{s}_retraction', time_col => 't', diff_col => 'd')",
          "SELECT * FROM persist.{s}")),
    Case("PERSIST_INVALID_AS_OF.TIME", "AsOfError",
         ("CREATE TABLE persist.{s} (id INT)", "SELECT * FROM persist.{s} TIMESTAMP AS OF '2020-01-01 00:00:00'")),
    Case("PERSIST_INVALID_AS_OF.VERSION", "AsOfError",
         ("CREATE TABLE persist.{s} (id INT)", "SELECT * FROM persist.{s} VERSION AS OF 99")),
    Case("PERSIST_INVALID_CONF", "InvalidInputError",
         ("CREATE TABLE persist.{s} (id INT)", "SET spark.sparkpersist.read.consistency = sometimes",
          "SELECT * FROM persist.{s}"), isolated=True),
    Case("PERSIST_INVALID_NAME.COLUMN_CASE", "InvalidInputError",  # CREATE TABLE: Spark refuses such names first
         ("CREATE OR REPLACE TEMPORARY VIEW {s}_rows AS SELECT named_struct('a', 1, 'A', 2) AS s",
          "CALL persist.system.write(shard => '{s}', source => '{s}_rows')")),
    Case("PERSIST_INVALID_NAME.RESERVED_COLUMN", "InvalidInputError", ("CREATE TABLE persist.{s} (time BIGINT)",)),
    Case("PERSIST_INVALID_NAME.SHARD", "InvalidInputError", ("CREATE TABLE persist.`{s}-x` (id INT)",)),
    Case("PERSIST_INVALID_NAME.SHARD_CASE", "InvalidInputError",
         ("CREATE TABLE persist.{s} (id INT)", "CREATE TABLE persist.{S} (id INT)")),
    Case("PERSIST_INVALID_NAME.TABLE", "InvalidInputError", ("SELECT * FROM persist.`/tmp/{s}`.journal",)),
    Case("PERSIST_INVALID_OPTION", "InvalidInputError",
         ("CREATE TABLE persist.{s} (id INT) TBLPROPERTIES ('sort' = 'id')",)),
    Case("PERSIST_INVALID_SCHEMA", "InvalidInputError",
         ("CREATE TABLE persist.{s} (id INT) TBLPROPERTIES ('order_by' = 'no_such_column')",)),
    Case("PERSIST_INVALID_WRITE", "InvalidInputError",
         ("CREATE TABLE persist.{s} (id INT)", "CREATE OR REPLACE TEMPORARY VIEW {s}_rows AS SELECT 1 AS id",
          "CALL persist.system.write(shard => '{s}', source => '{s}_rows', time_col => 'no_such_column')"),
         isolated=True),
    Case("PERSIST_INVALID_STATEMENT", "InvalidInputError",
         ("CREATE TABLE persist.{s} (id INT)", "RESTORE TABLE persist.{s} TO LATEST")),
    Case("PERSIST_LOCATION_NOT_EMPTY", "InvalidInputError", run=_occupied_location, surfaces=NOT_SQL),
    Case("PERSIST_NAME_TAKEN.BY_NAMESPACE", "InvalidInputError",
         ("CREATE NAMESPACE persist.{s}", "CREATE TABLE persist.{s} (id INT)")),
    Case("PERSIST_NAME_TAKEN.BY_SHARD", "InvalidInputError",
         ("CREATE TABLE persist.{s} (id INT)", "CREATE NAMESPACE persist.{s}")),
    Case("PERSIST_NAMESPACE_NOT_FOUND", "NotFoundError",
         ("CREATE OR REPLACE TEMPORARY VIEW {s}_rows AS SELECT 1 AS id",
          "CALL persist.system.write(shard => '{s}_none.t', source => '{s}_rows')")),
    Case("PERSIST_PATH_EXISTS", "ShardExistsError", run=_path_exists, surfaces=NOT_SQL),
    Case("PERSIST_PROCEDURE_NOT_FOUND", "NotFoundError", ("CALL persist.system.no_such_procedure()",)),
    Case("PERSIST_SCHEMA_CHANGED_DURING_WRITE", "ShardConflictError", run=_schema_changed, surfaces=NOT_SQL),
    Case("PERSIST_SHARD_NOT_FOUND", "ShardNotFoundError", ("CALL persist.system.compact('{s}')",)),
    Case("PERSIST_SHARD_NOT_FOUND_AT", "ShardNotFoundError", run=_missing_path_shard, surfaces=NOT_SQL),
    Case("PERSIST_STREAM_CHECKPOINT_OF_OTHER_SHARD", "StreamError", run=_stream_of_other_shard, surfaces=NOT_SQL),
    Case("PERSIST_STREAM_OFFSET_BELOW_SINCE", "StreamError", run=_stream_below_since, surfaces=NOT_SQL),
    Case("PERSIST_STREAM_SCHEMA_CHANGED", "StreamError", run=_stream_schema_changed, surfaces=NOT_SQL),
    Case("PERSIST_UNREADABLE_PART", "UnreadablePartError",
         ONE_ROW, damage=_remove_part),
    Case("PERSIST_UNSUPPORTED_FORMAT.PART", "UnsupportedFormatError",
         ONE_ROW, damage=_part_version(b"99")),
    Case("PERSIST_UNSUPPORTED_FORMAT.PART_VERSION_DAMAGED", "UnsupportedFormatError",
         ONE_ROW, damage=_part_version(b"9x")),
    Case("PERSIST_UNSUPPORTED_FORMAT.POSITIONS", "UnsupportedFormatError",
         AFTER_A_DELETE, damage=_newer_positions),
    Case("PERSIST_UNSUPPORTED_FORMAT.STATE", "UnsupportedFormatError",
         ONE_ROW, damage=_newer_state),
    Case("PERSIST_UNSUPPORTED_OPERATION", "UnsupportedOperationError",
         ("CREATE TABLE persist.{s} (id INT)", "ANALYZE TABLE persist.{s} COMPUTE STATISTICS")),
    Case("PERSIST_UPPER_MISMATCH", "UpperMismatchError", run=_upper_mismatch, surfaces=NOT_SQL),
    # Spark's own conditions for persist tables, raised as the package's classes too.
    Case("TABLE_OR_VIEW_ALREADY_EXISTS", "ShardExistsError",
         ("CREATE TABLE persist.{s} (id INT)", "CREATE TABLE persist.{s} (id INT)")),
    Case("TABLE_OR_VIEW_NOT_FOUND", "ShardNotFoundError", ("SELECT * FROM persist.{s}",)),
    Case("SCHEMA_ALREADY_EXISTS", "InvalidInputError", ("CREATE NAMESPACE persist.{s}", "CREATE NAMESPACE persist.{s}")),
    Case("SCHEMA_NOT_EMPTY", "InvalidInputError",
         ("CREATE NAMESPACE persist.{s}", "CREATE TABLE persist.{s}.t (id INT)", "DROP NAMESPACE persist.{s}")),
]


def shard_of(case: Case, surface: str) -> str:
    return f"e_{surface}_{case.name}"[:120]


def trigger(case: Case, spark: SparkSession, root: Path, surface: str,
            fresh: Callable[[], SparkSession]) -> sparkpersist.SparkPersistError:
    """Runs ``case`` in ``spark`` (``fresh()`` makes a new session); returns the error its last step raised."""
    shard = shard_of(case, surface)
    session = fresh() if case.isolated else spark
    try:
        with sparkpersist.translated_errors():
            if case.run is not None:
                case.run(session, shard, root, fresh)
            else:
                *setup, last = [q.format(s=shard, S=shard.upper()) for q in case.sql]
                for statement in setup:
                    session.sql(statement).collect()
                if case.damage is not None:
                    case.damage(root, shard)
                    session = fresh()
                session.sql(last).collect()
    except sparkpersist.SparkPersistError as e:
        return e
    raise AssertionError(f"{case.condition}: no error was raised")
