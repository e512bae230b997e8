"""Issue 51's transcript from PySpark (classic), over a Spark Connect server and through the Thrift server."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pyspark.sql import SparkSession

from apps import catalogs_transcript
from test_connect import APPS, connect_url  # noqa: F401 - the Connect server fixture
from test_spark_submit import without_stack_frames
from test_thriftserver import beeline, result_sets, server, table  # noqa: F401 - the Thrift server fixture


def test_transcript_from_pyspark(spark: SparkSession, tmp_path: Path) -> None:
    catalogs_transcript.check(catalogs_transcript.run(spark, str(tmp_path), ns="sales_classic"), ns="sales_classic")


def test_transcript_over_spark_connect(connect_url: str, tmp_path: Path) -> None:  # noqa: F811
    done = subprocess.run([sys.executable, str(APPS / "catalogs_transcript.py"), connect_url, str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    catalogs_transcript.check(json.loads(done.stdout.strip().splitlines()[-1]))


def test_transcript_through_the_thrift_server(server: int, tmp_path: Path) -> None:  # noqa: F811
    path = tmp_path / "t"
    setup = beeline(server, [
        "CREATE NAMESPACE persist.sales",
        "CREATE TABLE persist.sales.orders (id BIGINT)",
        "INSERT INTO persist.sales.orders VALUES (1), (2)",
        f"CREATE TABLE persist.`{path}` (id BIGINT)",
        f"INSERT INTO persist.`{path}` VALUES (3)",
        "CREATE TABLE persist.h (id BIGINT)",
        "INSERT INTO persist.h VALUES (4)",
        "ALTER TABLE persist.h RENAME TO persist.sales.h2",
    ])
    assert setup.returncode == 0, without_stack_frames(setup.stderr)
    queries = {
        "SHOW NAMESPACES IN persist": "namespace",
        "SELECT id AS orders_id FROM persist.sales.orders ORDER BY id": "orders_id",
        f"SELECT id AS path_id FROM persist.`{path}`": "path_id",
        f"SELECT sum(row_count) AS part_rows FROM persist.`{path}`.parts": "part_rows",
        "SELECT id AS renamed_id FROM persist.sales.h2": "renamed_id",
    }
    done = beeline(server, list(queries))
    assert done.returncode == 0, without_stack_frames(done.stderr)
    namespaces, orders, at_path, part_rows, renamed = result_sets(done.stdout, list(queries.values()))
    assert "sales" in [row[0] for row in table(namespaces)]
    assert table(orders) == [["1"], ["2"]]
    assert table(at_path) == [["3"]] and table(part_rows) == [["1"]]
    assert table(renamed) == [["4"]]
    analyze = beeline(server, ["ANALYZE TABLE persist.sales.h2 COMPUTE STATISTICS"])
    assert analyze.returncode != 0
    assert "ANALYZE TABLE persist.sales.h2: it is not needed: a persist table's statistics come from its parts" in analyze.stderr
    dropped = beeline(server, ["DROP NAMESPACE persist.sales CASCADE", "SHOW NAMESPACES IN persist"])
    assert dropped.returncode == 0, without_stack_frames(dropped.stderr)
