"""The Thrift server launcher: its input checks, then the scenario through beeline over JDBC."""
from __future__ import annotations

import csv
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Sequence

import pytest

import sparkpersist
from sparkpersist.thriftserver import (ThriftServerError, beeline_command, check_bind, is_loopback, spark_env,
                                       start_thriftserver, thriftserver_command)

from apps import scenario
from conftest import HOST, MISSING_TABLE_IN_THRIFT, Server, free_port
from test_spark_submit import pushdown_mode, without_stack_frames

PROMPT = re.compile(r"^\d+: jdbc:hive2://\S+> ")


def test_command_line_carries_extensions_catalog_root_and_address() -> None:
    command = thriftserver_command("/data/shards", "/data/shards/.thriftserver", port=10321, host="0.0.0.0",
                                   conf={"spark.ui.enabled": "false", "spark.sql.warehouse.dir": "/elsewhere"})
    pairs = list(zip(command, command[1:]))
    assert ("--class", "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2") in pairs
    assert ("--jars", sparkpersist.jar_path()) in pairs
    confs = [value for flag, value in pairs if flag == "--conf"]
    assert confs == [
        "spark.sql.extensions=sparkpersist.PersistExtensions",
        "spark.sql.catalog.persist=sparkpersist.catalog.PersistCatalog",
        "spark.sparkpersist.root=/data/shards",
        "spark.sql.warehouse.dir=/elsewhere",  # a user conf replaces the default in place
        "spark.hadoop.javax.jdo.option.ConnectionURL="
        "jdbc:derby:;databaseName=/data/shards/.thriftserver/metastore_db;create=true",
        "spark.ui.enabled=false",
    ]
    assert command[-4:] == ["--hiveconf", "hive.server2.thrift.port=10321",
                            "--hiveconf", "hive.server2.thrift.bind.host=0.0.0.0"]


def test_missing_root_is_refused(tmp_path: Path) -> None:
    missing = tmp_path / "no_such_dir"
    with pytest.raises(ThriftServerError, match=re.escape(
            f"The shard root {missing} does not exist or is not a directory. Create it (mkdir -p {missing})")):
        start_thriftserver(str(missing), port=free_port())


def test_port_in_use_is_refused(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind((HOST, 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ThriftServerError, match=re.escape(
                f"Port {port} on {HOST} is already in use (another Thrift server or HiveServer2?). "
                "Stop it or pass another --port.")):
            start_thriftserver(str(tmp_path), port=port)
    assert not (tmp_path / ".thriftserver").exists()  # refused before anything was made


def test_cli_reports_a_missing_root_and_exits_2(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    done = subprocess.run([sys.executable, "-m", "sparkpersist", "thriftserver", "--root", str(missing)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == (f"error: The shard root {missing} does not exist or is not a directory. Create it "
                           f"(mkdir -p {missing}) or pass the directory that holds your shards.\n")
    assert done.stdout == ""


@pytest.fixture(scope="module")
def server(thrift_server: Server) -> int:
    """The port of a Thrift server over a fresh root."""
    return thrift_server.port


def beeline(port: int, statements: Sequence[str], timeout_s: float = 120) -> subprocess.CompletedProcess:
    """Runs ``statements`` in one beeline session (pyspark's) with CSV output and no banner."""
    command = beeline_command(HOST, port, "test") + [
        "--silent=true", "--outputformat=csv2", "-e", ";\n".join(statements) + ";"]
    return subprocess.run(command, env=spark_env(), capture_output=True, text=True, timeout=timeout_s)


def result_sets(output: str, headers: Sequence[str]) -> list[list[str]]:
    """Splits beeline's output of several queries, whose header lines are ``headers``, into their row lines."""
    lines = [PROMPT.sub("", line) for line in output.splitlines() if line.strip()]
    starts, at = [], 0
    for header in headers:
        assert header in lines[at:], f"no result with header {header!r} in:\n{output}"
        at = lines.index(header, at)
        starts.append(at)
        at += 1
    ends = starts[1:] + [len(lines)]
    return [lines[start + 1:end] for start, end in zip(starts, ends)]


def table(lines: Sequence[str]) -> list[list[str]]:
    """CSV row lines as lists of fields (beeline's csv2 does not quote EXPLAIN's plan: read it as a line)."""
    return list(csv.reader(lines))


def test_scenario_through_beeline(server: int) -> None:
    setup = beeline(server, scenario.SETUP)
    assert setup.returncode == 0, without_stack_frames(setup.stderr)
    queries = {
        scenario.WINDOW_QUERY: "id,kind,age_days",
        "EXPLAIN " + scenario.WINDOW_QUERY: "plan",
        scenario.AS_OF_QUERY: "as_of",
        scenario.BATCHES_QUERY: "batch_lower,batch_upper,row_count,bytes",
    }
    done = beeline(server, list(queries))
    assert done.returncode == 0, without_stack_frames(done.stderr)
    window, [plan], as_of, batches = result_sets(done.stdout, list(queries.values()))
    assert table(window) == [[str(v) for v in row] for row in scenario.WINDOW_ROWS]
    (lower1, upper1, rows1, bytes1), (lower2, upper2, rows2, bytes2) = \
        [[int(v) for v in row] for row in table(batches)]
    assert (lower1, rows1, lower2, rows2) == (0, 2, upper1, 2)
    assert scenario.SCAN_SUMMARY.findall(plan) == [scenario.window_scan_summary(bytes1, bytes2, pushdown_mode())]
    assert as_of == [str(upper2 - 1)]


def test_errors_reach_the_client(server: int) -> None:
    done = beeline(server, ["SELECT * FROM persist.no_such_shard"])
    assert done.returncode != 0
    if MISSING_TABLE_IN_THRIFT == "TABLE_OR_VIEW_NOT_FOUND":
        assert ("[TABLE_OR_VIEW_NOT_FOUND] The table or view `persist`.`no_such_shard` cannot be found."
                in done.stderr), without_stack_frames(done.stderr)
    else:
        assert f"[{MISSING_TABLE_IN_THRIFT}] " in done.stderr, without_stack_frames(done.stderr)


def test_history_and_restore_through_beeline(server: int) -> None:
    """DESCRIBE HISTORY and RESTORE TABLE reach the Thrift server's parser, as any client sends them."""
    done = beeline(server, [
        "CREATE TABLE persist.beeline_hist (k INT, v STRING) TBLPROPERTIES ('order_by' = 'k')",
        "INSERT INTO persist.beeline_hist VALUES (1, 'a'), (2, 'b')",
        "INSERT INTO persist.beeline_hist VALUES (3, 'c')",
        "DELETE FROM persist.beeline_hist WHERE k = 2",
        "SELECT k, v FROM persist.beeline_hist VERSION AS OF 2 ORDER BY k",
        "restore table persist.beeline_hist to version as of 2",
        "SELECT k, v FROM persist.beeline_hist ORDER BY k",
        "DESC HISTORY persist.beeline_hist LIMIT 2",
    ])
    assert done.returncode == 0, without_stack_frames(done.stderr)
    lines = [PROMPT.sub("", line) for line in done.stdout.splitlines() if line.strip()]
    before = lines.index("k,v")
    after = lines.index("k,v", before + 1)
    assert lines[before + 1:before + 4] == ["1,a", "2,b", "3,c"]
    assert lines[after + 1:after + 4] == ["1,a", "2,b", "3,c"]
    [restore_header] = [line for line in lines if line.startswith("shard,version,as_of,batch_id")]
    restore = dict(zip(restore_header.split(","), lines[lines.index(restore_header) + 1].split(",")))
    assert (restore["shard"], restore["version"], restore["num_restored_rows"], restore["num_retracted_rows"]) == \
        ("beeline_hist", "2", "1", "0")
    [history_header] = [line for line in lines if line.startswith("version,timestamp,userName,operation")]
    history = [row for row in table(lines[lines.index(history_header) + 1:])]
    assert [(row[0], row[3]) for row in history] == [("4", "RESTORE"), ("3", "DELETE")]


def test_char_varchar_through_beeline(server: int) -> None:
    """CHAR/VARCHAR columns behave as in Spark's own tables: padded CHAR, lengths checked on INSERT."""
    done = beeline(server, [
        "CREATE TABLE persist.beeline_chars (c CHAR(4), v VARCHAR(3))",
        "INSERT INTO persist.beeline_chars VALUES ('ab', 'xy')",
        "SELECT concat('[', c, ']') AS padded, v FROM persist.beeline_chars WHERE c = 'ab'",
    ])
    assert done.returncode == 0, without_stack_frames(done.stderr)
    [rows] = result_sets(done.stdout, ["padded,v"])
    assert table(rows) == [["[ab  ]", "xy"]]
    too_long = beeline(server, ["INSERT INTO persist.beeline_chars VALUES ('abcde', 'x')"])
    assert too_long.returncode != 0
    assert "EXCEED_LIMIT_LENGTH" in too_long.stderr, without_stack_frames(too_long.stderr)


@pytest.mark.parametrize("host", ["0.0.0.0", "", "::"])
def test_a_bind_beyond_loopback_needs_an_explicit_flag(tmp_path: Path, host: str) -> None:
    with pytest.raises(ThriftServerError, match=re.escape(
            "it is reachable from other machines, and the server has no authentication unless you configure it "
            "(hive.server2.authentication). Pass --allow-remote (allow_remote=True)")):
        start_thriftserver(str(tmp_path), port=free_port(), host=host)
    assert not (tmp_path / ".thriftserver").exists()  # refused before anything was created


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_loopback_binds_need_no_flag_and_warn_of_nothing(host: str) -> None:
    assert is_loopback(host)
    assert check_bind(host, allow_remote=False) is None


def test_an_allowed_remote_bind_warns_unless_authentication_is_configured() -> None:
    warning = check_bind("0.0.0.0", allow_remote=True)
    assert warning is not None and "WITHOUT authentication" in warning and "hive.server2.authentication" in warning
    assert check_bind("0.0.0.0", allow_remote=True, conf={"hive.server2.authentication": "NONE"}) == warning
    assert check_bind("0.0.0.0", allow_remote=True,
                      conf={"spark.hadoop.hive.server2.authentication": "LDAP"}) is None


def test_cli_refuses_a_remote_bind_without_the_flag(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "sparkpersist", "thriftserver", "--root", str(tmp_path),
                             "--host", "0.0.0.0", "--port", str(free_port())],
                            capture_output=True, text=True, env=spark_env(), timeout=60)
    assert result.returncode == 2
    assert "error: Refusing to listen on 0.0.0.0" in result.stderr
