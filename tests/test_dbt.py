"""A dbt project (tests/dbt: dbt-core + dbt-spark, method thrift) over persist tables, against the Thrift
server started with the session catalog and its Hive metastore: run twice, tested, and each model's table
compared with plain Spark over the seeds (Parquet tables, read without Parquet filter pushdown).

dbt lives in a virtualenv of its own (``make test-dbt`` creates ``.venv/dbt`` from
python/requirements-dbt.txt): dbt-core pins a protobuf older than the one the Spark Connect client needs.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterator, Sequence

import pytest

from sparkpersist.thriftserver import stop

from test_session_catalog import thriftserver
from test_spark_submit import without_stack_frames
from test_thriftserver import beeline, result_sets, table

PROJECT = Path(__file__).resolve().parent / "dbt"
DBT = Path(os.environ.get("SPARKPERSIST_DBT", Path(__file__).resolve().parents[1] / ".venv" / "dbt" / "bin" / "dbt"))
SCHEMA = "analytics"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    if not DBT.is_file():
        pytest.fail(f"dbt is not installed at {DBT}: run `make test-dbt` (it creates .venv/dbt), "
                    "or point SPARKPERSIST_DBT at a dbt with dbt-spark[PyHive].")
    state = tmp_path_factory.mktemp("dbt_state")
    process, port = thriftserver(tmp_path_factory.mktemp("dbt_root"), state, state.parent / "dbt_thriftserver.log")
    try:
        yield port
    finally:
        stop(process)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the project, so that dbt's target/ and logs/ stay out of the source tree."""
    copy = tmp_path_factory.mktemp("dbt") / "project"
    shutil.copytree(PROJECT, copy)
    return copy


def run_dbt(project: Path, port: int, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DBT_SPARK_PORT": str(port), "DBT_SCHEMA": SCHEMA, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    return subprocess.run([str(DBT), *args, "--project-dir", str(project), "--profiles-dir", str(project)],
                          cwd=project, env=env, capture_output=True, text=True, timeout=900)


def dbt(project: Path, port: int, *args: str) -> str:
    done = run_dbt(project, port, *args)
    assert done.returncode == 0, f"dbt {' '.join(args)} failed:\n{done.stdout[-6000:]}\n{done.stderr[-2000:]}"
    return done.stdout


def rows(port: int, queries: Sequence[str], headers: Sequence[str]) -> list[list[list[str]]]:
    done = beeline(port, ["SET spark.sql.parquet.filterPushdown=false", *queries])
    assert done.returncode == 0, without_stack_frames(done.stderr)
    return [sorted(table(lines)) for lines in result_sets(done.stdout, ["key,value", *headers])[1:]]


ORACLES = {
    "customers_dim": "SELECT id, name, tier FROM {s}.customers",
    "orders_appended": "SELECT id, customer_id, status, amount, batch FROM {s}.orders WHERE batch <= {b}",
    "customer_totals": "SELECT c.id AS customer_id, c.name, count(o.id) AS orders, coalesce(sum(o.amount), 0) AS amount "
                       "FROM {s}.customers c LEFT JOIN (SELECT * FROM {s}.orders WHERE batch <= {b}) o "
                       "ON o.customer_id = c.id GROUP BY c.id, c.name",
}
HEADERS = {"customers_dim": "id,name,tier", "orders_appended": "id,customer_id,status,amount,batch",
           "customer_totals": "customer_id,name,orders,amount"}


def check_models(port: int, batch: int) -> None:
    """Each model's table equals plain Spark's query over the seeds; the models are persist tables."""
    for model, oracle in ORACLES.items():
        ours, expected = rows(port, [f"SELECT * FROM {SCHEMA}.{model}", oracle.format(s=SCHEMA, b=batch)],
                              [HEADERS[model], HEADERS[model]])
        assert ours == expected, model
        [described] = rows(port, [f"DESCRIBE TABLE EXTENDED {SCHEMA}.{model}"], ["col_name,data_type,comment"])
        assert ["Provider", "persist", ""] in described, model


def test_the_project_runs_twice_and_incremental_models_add_only_new_rows(server: int, project: Path) -> None:
    dbt(project, server, "seed")
    dbt(project, server, "run", "--vars", "{batch: 1}")
    dbt(project, server, "test", "--vars", "{batch: 1}")
    check_models(server, batch=1)
    dbt(project, server, "run", "--vars", "{batch: 2}")
    dbt(project, server, "test", "--vars", "{batch: 2}")
    check_models(server, batch=2)
    # The append model got one batch per run, the second with only the 3 rows of batch 2.
    [batches] = rows(server, [f"SELECT row_count FROM {SCHEMA}.orders_appended.batches"], ["row_count"])
    assert sorted(int(n) for [n] in batches) == [3, 4]
    [view] = rows(server, [f"SHOW TABLE EXTENDED IN {SCHEMA} LIKE 'stg_orders'"],
                  ["namespace,tableName,isTemporary,information"])
    assert "Type: VIEW" in view[0][3]


def test_without_the_macro_override_dbt_spark_refuses_persist_for_incremental_models(
        server: int, project: Path, tmp_path: Path) -> None:
    bare = tmp_path / "project"
    shutil.copytree(project, bare, ignore=shutil.ignore_patterns("target", "logs"))
    (bare / "macros" / "persist_file_format.sql").unlink()
    done = run_dbt(bare, server, "run", "--select", "orders_appended", "--vars", "{batch: 2}")
    assert done.returncode != 0
    assert "Invalid file format provided: persist" in done.stdout
