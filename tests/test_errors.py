"""Every error condition sparkpersist can raise, triggered from PySpark in a classic session, over a real
Spark Connect server and (where it is a SQL statement) over the Thrift server: each arrives as the package's
class of its condition, with ``[CONDITION] ... SQLSTATE: xxxxx`` in its message."""
from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

import sparkpersist
from sparkpersist.errors import class_of

from apps.error_cases import CASES, NOT_FROM_A_CLIENT, Case, shard_of, trigger
from conftest import MISSING_TABLE_IN_THRIFT, Server
from test_spark_submit import without_stack_frames
from test_thriftserver import beeline

APPS = Path(__file__).resolve().parent / "apps"


def declared_conditions() -> dict[str, str]:
    """Every condition of the jar's error-conditions file (``MAIN`` or ``MAIN.SUB``) with its SQLSTATE."""
    with zipfile.ZipFile(sparkpersist.jar_path()) as jar:
        declared = json.loads(jar.read("error/sparkpersist-error-conditions.json"))
    return {f"{main}.{sub}" if sub else main: info["sqlState"]
            for main, info in declared.items() for sub in (info.get("subClass") or {None: None})}


CONDITIONS = declared_conditions()
SPARK_STATES = {"TABLE_OR_VIEW_ALREADY_EXISTS": "42P07", "TABLE_OR_VIEW_NOT_FOUND": "42P01",
                "SCHEMA_ALREADY_EXISTS": "42P06", "SCHEMA_NOT_EMPTY": "2BP01"}


def sql_state(condition: str) -> str:
    return CONDITIONS.get(condition) or SPARK_STATES[condition]


def test_every_declared_condition_has_a_case_or_a_reason_no_client_reaches_it() -> None:
    cased = {c.condition for c in CASES}
    assert sorted(set(CONDITIONS) - cased - set(NOT_FROM_A_CLIENT)) == []
    assert sorted(cased - set(CONDITIONS) - set(SPARK_STATES)) == []
    assert sorted(set(NOT_FROM_A_CLIENT) - set(CONDITIONS)) == []
    assert not cased & set(NOT_FROM_A_CLIENT)


def test_every_declared_condition_has_a_python_class_and_the_cases_expect_it() -> None:
    for condition in CONDITIONS:
        assert class_of(condition) is not None, condition
    for case in CASES:
        assert class_of(case.condition) is getattr(sparkpersist, case.error), case.condition


def check(case: Case, error: Any, message: str) -> None:
    expected = getattr(sparkpersist, case.error)
    assert isinstance(error, expected), f"{case.condition}: {type(error).__name__}: {message}"
    assert error.getCondition() == case.condition, message
    assert error.getSqlState() == sql_state(case.condition), message
    assert message.startswith(f"[{case.condition}] "), message
    assert f" SQLSTATE: {sql_state(case.condition)}" in message, message


@pytest.mark.parametrize("case", [c for c in CASES if "classic" in c.surfaces], ids=lambda c: c.condition)
def test_in_a_classic_session(case: Case, spark: SparkSession, root: Path) -> None:
    error = trigger(case, spark, root, "classic", spark.newSession)
    check(case, error, str(error))


@pytest.fixture(scope="module")
def over_connect(connect_server: Server) -> dict[str, Any]:
    """What each case raised in a Spark Connect client (``apps/errors_client.py``), by condition."""
    try:
        done = subprocess.run([sys.executable, str(APPS / "errors_client.py"), connect_server.connect_url,
                               str(connect_server.root)], capture_output=True, text=True, timeout=900, cwd=APPS)
    except subprocess.TimeoutExpired as e:  # the client names each case on stderr as it starts it
        stderr = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        pytest.fail(f"the Connect client did not finish in {e.timeout} s; its last lines:\n{stderr[-2000:]}")
    assert done.returncode == 0, done.stderr[-4000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["connect"].startswith("pyspark.sql.connect")
    return out["cases"]


@pytest.mark.parametrize("case", [c for c in CASES if "connect" in c.surfaces], ids=lambda c: c.condition)
def test_over_spark_connect(case: Case, over_connect: dict[str, Any]) -> None:
    got = over_connect[case.condition]
    assert "failed" not in got, got.get("failed")
    assert case.error in got["is"], f"{case.condition}: {got['class']}: {got['message']}"
    assert got["condition"] == case.condition, got["message"]
    assert got["sql_state"] == sql_state(case.condition), got["message"]
    assert got["message"].startswith(f"[{case.condition}] "), got["message"]
    assert f" SQLSTATE: {sql_state(case.condition)}" in got["message"], got["message"]


THRIFT_CASES = [c for c in CASES if "thrift" in c.surfaces]


@pytest.mark.parametrize("case", THRIFT_CASES, ids=lambda c: c.condition)
def test_through_the_thrift_server(case: Case, thrift_server: Server) -> None:
    """beeline (JDBC) shows the condition, the message and the SQLSTATE, which JDBC reports as the error's state."""
    shard = shard_of(case, "thrift")
    statements = [q.format(s=shard, S=shard.upper()) for q in case.sql]
    *setup, last = statements
    if case.damage is not None:  # the setup in one session, the last statement in a new one
        done = beeline(thrift_server.port, setup)
        assert done.returncode == 0, without_stack_frames(done.stderr)
        case.damage(thrift_server.root, shard)
        statements = [last]
    done = beeline(thrift_server.port, statements)
    assert done.returncode != 0
    error = [line for line in done.stderr.splitlines() if line.startswith("Error: ")]
    assert error, without_stack_frames(done.stderr)
    if case.condition == "TABLE_OR_VIEW_NOT_FOUND" and MISSING_TABLE_IN_THRIFT != case.condition:
        assert f"[{MISSING_TABLE_IN_THRIFT}] " in error[0], error[0]  # Spark 4.1's Hive sessions (conftest)
        return
    state = sql_state(case.condition)
    assert f"[{case.condition}] " in error[0], error[0]
    if case.condition.startswith("PERSIST_"):  # Spark's Thrift server leaves the SQLSTATE out of its own messages
        assert f" SQLSTATE: {state}" in error[0], error[0]
    assert f"(state={state},code=0)" in done.stderr, without_stack_frames(done.stderr)[-3000:]
