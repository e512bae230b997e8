"""Persist tables in Spark's session catalog and a real Hive metastore (embedded Derby), as the Thrift
server, PySpark and a Spark Connect server see them: one metastore, used by each in turn (embedded Derby
admits one process at a time)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

import sparkpersist
from sparkpersist._session import EXTENSIONS, SESSION_CATALOG_CLASS, SESSION_CATALOG_KEY
from sparkpersist.thriftserver import (metastore_conf, spark_env, spark_script, start_thriftserver, stop,
                                       thriftserver_command, wait_until_ready)

from conftest import HOST, free_port, run_conf
from test_spark_submit import without_stack_frames
from test_thriftserver import beeline, result_sets, table

APPS = Path(__file__).resolve().parent / "apps"

SETUP = [
    "CREATE DATABASE sales",
    "CREATE TABLE sales.orders (id BIGINT, customer STRING, amount DOUBLE) USING persist "
    "TBLPROPERTIES ('order_by' = 'id')",
    "INSERT INTO sales.orders VALUES (1, 'ann', 10.0), (2, 'bob', 20.0), (3, 'ann', 30.0), (4, 'cy', 40.0)",
    "DELETE FROM sales.orders WHERE customer = 'cy'",
    "UPDATE sales.orders SET amount = amount + 1 WHERE id = 2",
    "CREATE TABLE sales.customers (name STRING, city STRING) USING parquet",
    "INSERT INTO sales.customers VALUES ('ann', 'Oslo'), ('bob', 'Rome')",
]
ORDERS = [[1, "ann", 10.0], [2, "bob", 21.0], [3, "ann", 30.0]]


def thriftserver(root: Path, state: Path, log: Path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    with open(log, "ab") as out:
        server = start_thriftserver(str(root), port=port, host=HOST, state_dir=str(state), master="local[2]",
                                    log=out, session_catalog=True,
                                    conf={"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2",
                                          **run_conf()})
    try:
        wait_until_ready(server, HOST, port, timeout_s=180)
    except Exception:
        stop(server)
        pytest.fail(f"the Thrift server did not start:\n{without_stack_frames(log.read_text())[-6000:]}")
    return server, port


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The metastore's (and warehouse's) directory every server and session of this module shares."""
    return tmp_path_factory.mktemp("session_catalog_state")


@pytest.fixture(scope="module")
def thrift_outputs(tmp_path_factory: pytest.TempPathFactory, state: Path) -> dict[str, str]:
    """The transcript through beeline; then a second server on the same metastore reads the table again."""
    root = tmp_path_factory.mktemp("session_catalog_root")
    log = state.parent / "session_catalog_thriftserver.log"
    outputs = {}
    server, port = thriftserver(root, state, log)
    try:
        setup = beeline(port, SETUP)
        assert setup.returncode == 0, without_stack_frames(setup.stderr)
        done = beeline(port, [
            "SELECT id, customer, amount FROM sales.orders ORDER BY id",
            "SHOW TABLES IN sales",
            "SELECT c.city, sum(o.amount) AS total FROM sales.orders o JOIN sales.customers c "
            "ON o.customer = c.name GROUP BY c.city ORDER BY c.city",
            "DESCRIBE TABLE EXTENDED sales.orders",
        ])
        assert done.returncode == 0, without_stack_frames(done.stderr)
        outputs["first"] = done.stdout
    finally:
        stop(server)
    server, port = thriftserver(root, state, log)
    try:
        again = beeline(port, ["SELECT id, customer, amount FROM sales.orders ORDER BY id"])
        assert again.returncode == 0, without_stack_frames(again.stderr)
        outputs["restarted"] = again.stdout
    finally:
        stop(server)
    return outputs


def test_the_command_line_sets_the_session_catalog_only_when_asked() -> None:
    setting = f"{SESSION_CATALOG_KEY}={SESSION_CATALOG_CLASS}"
    with_it = thriftserver_command("/data", "/data/.thriftserver", session_catalog=True)
    without = thriftserver_command("/data", "/data/.thriftserver")
    assert setting not in without
    at = with_it.index(setting)
    assert with_it[at - 1] == "--conf" and with_it[:at - 1] + with_it[at + 1:] == without


def test_the_cli_takes_session_catalog() -> None:
    from sparkpersist.__main__ import build_parser

    assert build_parser().parse_args(["thriftserver", "--root", "/data", "--session-catalog"]).session_catalog
    assert not build_parser().parse_args(["thriftserver", "--root", "/data"]).session_catalog


def test_a_persist_table_in_a_database_through_the_thrift_server(thrift_outputs: dict[str, str]) -> None:
    orders, tables, totals, described = result_sets(
        thrift_outputs["first"], ["id,customer,amount", "namespace,tableName,isTemporary", "city,total",
                                  "col_name,data_type,comment"])
    assert table(orders) == [[str(v) for v in row] for row in ORDERS]
    assert table(tables) == [["sales", "customers", "false"], ["sales", "orders", "false"]]
    assert table(totals) == [["Oslo", "40.0"], ["Rome", "21.0"]]
    detail = {row[0]: row[1] for row in table(described) if len(row) >= 2}
    assert detail["Provider"] == "persist"
    assert detail["Location"].endswith("/warehouse/sales.db/orders")


def test_the_metastore_keeps_the_table_for_the_next_server(thrift_outputs: dict[str, str]) -> None:
    [orders] = result_sets(thrift_outputs["restarted"], ["id,customer,amount"])
    assert table(orders) == [[str(v) for v in row] for row in ORDERS]


def client(mode: str, target: str) -> dict:
    done = subprocess.run([sys.executable, str(APPS / "session_catalog_client.py"), mode, target],
                          capture_output=True, text=True, timeout=600, cwd=Path(target).parent if mode == "classic" else None)
    assert done.returncode == 0, without_stack_frames(done.stderr)[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def check_client(out: dict) -> None:
    assert out["orders_as_left"] == ORDERS
    assert {"customers", "orders"} <= set(out["tables"])
    assert out["events"] == out["events_oracle"] == [[1, "a"], [2, "b"], [3, "a"], [4, "c"]]
    assert out["after_delete"] == out["after_delete_oracle"] == [[2, "b"], [4, "c"]]
    assert out["created"] == [[10, "x"], [11, "y"]]
    assert (out["created_provider"], out["created_order_by"]) == ("persist", "id")
    assert out["tables_after_drop"] == ["events", "events_parquet"]


def test_pyspark_with_hive_support_reads_and_writes_the_servers_tables(thrift_outputs: dict[str, str],
                                                                        state: Path) -> None:
    out = client("classic", str(state))
    assert out["session"].startswith("pyspark.sql")
    check_client(out)
    assert out["dropped_location_exists"] is False  # a managed table's shard goes with it


@pytest.fixture(scope="module")
def connect_url(thrift_outputs: dict[str, str], state: Path) -> Iterator[str]:
    """A Spark Connect server with Hive support, the session catalog and the module's metastore."""
    port = free_port()
    confs = {"spark.sql.extensions": EXTENSIONS, SESSION_CATALOG_KEY: SESSION_CATALOG_CLASS,
             "spark.sql.catalogImplementation": "hive", **metastore_conf(str(state)),
             "spark.connect.grpc.binding.address": HOST, "spark.connect.grpc.binding.port": str(port),
             "spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2", **run_conf()}
    command = [spark_script("spark-submit"), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
               "--master", "local[2]", "--jars", sparkpersist.jar_path(),
               "--driver-class-path", sparkpersist.jar_path(), "--driver-java-options", f"-Dderby.system.home={state}"]
    for key, value in confs.items():
        command += ["--conf", f"{key}={value}"]
    log_path = state.parent / "session_catalog_connect.log"
    with open(log_path, "wb") as log:
        server = subprocess.Popen(command, cwd=state, env=spark_env(), stdout=log, stderr=log)
    try:
        try:
            wait_until_ready(server, HOST, port, timeout_s=180)
        except Exception:
            pytest.fail(f"the Connect server did not start:\n{without_stack_frames(log_path.read_text())[-6000:]}")
        yield f"sc://{HOST}:{port}"
    finally:
        stop(server)


def test_a_connect_client_reads_and_writes_tables_of_the_metastore(connect_url: str) -> None:
    out = client("connect", connect_url)
    assert out["session"].startswith("pyspark.sql.connect")
    check_client(out)
