"""Damaged shard files from PySpark: each raises the sparkpersist error that names the file and
says what to do (issue 13), from the module's functions and from a query wrapped in
``sparkpersist.translated_errors()``."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import sparkpersist


def _two_batches(spark, shard: str) -> None:
    for i in range(2):
        sparkpersist.write(spark.createDataFrame([(i, f"v{i}")], "k bigint, v string").coalesce(1), shard)


def _collect(spark, shard: str) -> list:
    with sparkpersist.translated_errors():
        return spark.table(f"persist.{shard}").collect()


def _fresh(spark):
    """A new session on the same context, whose catalog has not read the shard yet: a state log
    that has read a version reads only the versions after it, so the damaged one must be new to it."""
    return spark.newSession()


def _version(root: Path, shard: str, seq_no: int) -> Path:
    return root / shard / "state" / f"{seq_no:020d}.json"


def _a_part(root: Path, shard: str) -> Path:
    return sorted((root / shard / "parts").rglob("*.parquet"))[0]


def test_a_damaged_state_version_raises_corrupt_state_error(spark, shard_name, root) -> None:
    _two_batches(spark, shard_name)
    version = _version(root, shard_name, 2)
    version.write_bytes(version.read_bytes()[:40])
    advice = rf"state file \S*{version.name} cannot be read .*restore it from a backup"
    fresh = _fresh(spark)
    with pytest.raises(sparkpersist.CorruptStateError, match=advice):
        _collect(fresh, shard_name)
    with pytest.raises(sparkpersist.CorruptStateError, match=advice):
        _two_batches(fresh, shard_name)


def test_a_state_version_of_a_newer_format_raises_unsupported_format_error(spark, shard_name, root) -> None:
    _two_batches(spark, shard_name)
    version = _version(root, shard_name, 2)
    # The JSON without its checksum frame (files written before the frame still open), of format 99.
    body = json.loads(version.read_text().strip().rsplit("\n", 1)[0])
    body["formatVersion"] = 99
    version.write_text(json.dumps(body))
    with pytest.raises(sparkpersist.UnsupportedFormatError,
                       match=rf"{version.name} has formatVersion 99, .*Upgrade sparkpersist to read this shard"):
        _collect(_fresh(spark), shard_name)


def test_a_damaged_part_raises_unreadable_part_error(spark, shard_name, root) -> None:
    _two_batches(spark, shard_name)
    part = _a_part(root, shard_name)
    part.write_bytes(part.read_bytes()[:100])
    part.with_name(f".{part.name}.crc").unlink(missing_ok=True)
    with pytest.raises(sparkpersist.UnreadablePartError,
                       match=rf"Part file \S*{part.name} cannot be read .*restore it from a backup"):
        _collect(spark, shard_name)


def test_a_missing_part_raises_unreadable_part_error(spark, shard_name, root) -> None:
    _two_batches(spark, shard_name)
    part = _a_part(root, shard_name)
    part.unlink()
    with pytest.raises(sparkpersist.UnreadablePartError, match=rf"Part file \S*{part.name} cannot be read"):
        _collect(spark, shard_name)


def test_a_part_of_a_newer_format_raises_unsupported_format_error(spark, shard_name, root) -> None:
    _two_batches(spark, shard_name)
    part = _a_part(root, shard_name)
    table = pq.read_table(part)
    metadata = dict(table.schema.metadata or {})
    metadata[b"sparkpersist.format.version"] = b"99"
    pq.write_table(table.replace_schema_metadata(metadata), part)
    part.with_name(f".{part.name}.crc").unlink(missing_ok=True)
    with pytest.raises(sparkpersist.UnsupportedFormatError,
                       match=rf"\[PERSIST_UNSUPPORTED_FORMAT.PART\] .* part file \S*{part.name} has part format "
                             r"version 99, .*upgrade sparkpersist"):
        _collect(spark, shard_name)
