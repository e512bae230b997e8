"""A shard's Iceberg metadata read by Spark's own Iceberg source (``iceberg-spark-runtime``), where Apache
Iceberg publishes a runtime for the Spark line under test (``line.<line>.iceberg_spark`` in
versions.properties; ``make test`` fetches it): in a separate Spark process without sparkpersist
(``apps/iceberg_spark_reader.py``), every snapshot of a random history must hold the rows of a plain
Parquet copy written by Spark at that version (the oracle of tests/test_statements.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pyspark
import pytest
from pyspark.sql import SparkSession

from sparkpersist._jar import spark_line
from sparkpersist.thriftserver import spark_env
from test_connect import APPS
from test_iceberg import History, iceberg_table, local_path, multiset, reflected_versions, snapshot_of, sync
from test_iceberg import plain_parquet  # noqa: F401  (the fixture)

PROJECT = Path(__file__).resolve().parents[1]
LINE = spark_line(pyspark.__version__)
RUNTIME = dict(line.split("=", 1) for line in (PROJECT / "versions.properties").read_text().splitlines()
               if "=" in line and not line.startswith("#")).get(f"line.{LINE}.iceberg_spark", "").strip()
pytestmark = pytest.mark.skipif(not RUNTIME, reason=f"Apache Iceberg publishes no Spark runtime for Spark {LINE} "
                                                    "(versions.properties)")


def runtime_jar() -> Path:
    """The line's iceberg-spark-runtime jar, as ``make iceberg-spark`` fetched it."""
    jars = sorted((PROJECT / "build" / "iceberg-spark" / f"spark-{LINE}").glob("iceberg-spark-runtime-*.jar"))
    assert jars, f"{RUNTIME} is not fetched: run `make iceberg-spark SPARK={LINE}` (make test does)"
    return jars[-1]


def read_with_spark_iceberg(location: Path, snapshot_ids: list[int], out: Path) -> dict[int, list[tuple]]:
    """Each snapshot's rows as Spark's Iceberg source reads them, as multisets."""
    done = subprocess.run([sys.executable, str(APPS / "iceberg_spark_reader.py"), str(runtime_jar()), str(location),
                           str(out), *map(str, snapshot_ids)], capture_output=True, text=True, timeout=900,
                          env=spark_env())
    assert done.returncode == 0, done.stderr[-4000:]
    return {s: multiset(pq.read_table(out / f"{s}.parquet")) for s in snapshot_ids}


@pytest.mark.parametrize("seed, compaction", [(4101, False), (4102, True)])
def test_every_snapshot_reads_through_spark_iceberg_source_as_plain_spark(
        spark: SparkSession, shard_name: str, tmp_path: Path, plain_parquet, seed: int, compaction: bool) -> None:
    history = History(spark, shard_name, tmp_path / "oracle", seed)
    done = [history.step(compaction=compaction) for _ in range(10)]
    row = sync(history)
    table = iceberg_table(row.metadata_location)
    versions = reflected_versions(table)
    assert versions and versions[-1] == row.shard_version, (versions, row)
    if not compaction:
        assert versions == sorted(history.oracles), done  # retractions by position: every version shown
    snapshots = {v: snapshot_of(table, v).snapshot_id for v in versions}
    location = local_path(row.metadata_location).parent.parent
    (tmp_path / "read").mkdir()
    read = read_with_spark_iceberg(location, list(snapshots.values()), tmp_path / "read")
    for version, snapshot_id in snapshots.items():
        assert read[snapshot_id] == history.expected(version), f"Spark's Iceberg source at shard version {version}: {done}"
