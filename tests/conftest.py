"""One Spark session for the whole pytest run, with a fresh shard root; real Spark Connect and Thrift servers."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

import pyspark
import pytest
from pyspark.sql import SparkSession

import sparkpersist
from sparkpersist._session import CATALOG_CLASS, EXTENSIONS, ROOT_KEY
from sparkpersist.thriftserver import (ThriftServerError, spark_env, spark_script, start_thriftserver, stop,
                                       wait_until_ready)

HOST = "127.0.0.1"

# What the Thrift server (a Hive session) reports for a missing persist.<shard>. The data source
# `persist` makes Spark read an unresolved two-part name as a query on files; the extension's
# ReportMissingShards, a hint resolution rule, reports the missing table first, but Spark 4.1's
# Hive session state runs no extension hint rules (4.2 added them): there Spark's own error stays
# (docs/catalogs.md).
MISSING_TABLE_IN_THRIFT = ("UNSUPPORTED_DATASOURCE_FOR_DIRECT_QUERY" if pyspark.__version__.startswith("4.1.")
                           else "TABLE_OR_VIEW_NOT_FOUND")


@pytest.fixture(scope="session")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shards")


@pytest.fixture(scope="session")
def spark(root: Path) -> Iterator[SparkSession]:
    # Python workers run this interpreter (with pyarrow: Spark 4.2 runs Python UDFs through Arrow).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    extra = {}
    # `make test` runs the suite a second time with soft pushdown (see Makefile); any extra
    # session configs come in through SPARKPERSIST_TEST_CONF="k=v,k=v".
    for pair in filter(None, os.environ.get("SPARKPERSIST_TEST_CONF", "").split(",")):
        key, _, value = pair.partition("=")
        extra[key.strip()] = value.strip()
    session = sparkpersist.session(
        str(root), master="local[2]", app_name="sparkpersist-tests",
        **{"spark.sql.shuffle.partitions": "4", "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
           "spark.sql.session.timeZone": "UTC"}, **extra)
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture
def shard_name(request: pytest.FixtureRequest) -> str:
    """A shard name unique to the test."""
    return "t_" + "".join(c if c.isalnum() else "_" for c in request.node.name)[:100]


@pytest.fixture
def session_conf(spark: SparkSession) -> Callable[[str, str], AbstractContextManager[None]]:
    """``with session_conf(key, value):`` runs the block with a session config set, then restores
    the value the session had before (the soft-mode pass of ``make test`` sets configs for the
    whole run, which a test must not unset)."""
    @contextmanager
    def setting(key: str, value: str) -> Iterator[None]:
        previous = spark.conf.get(key, None)
        spark.conf.set(key, value)
        try:
            yield
        finally:
            if previous is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, previous)
    return setting


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def run_conf() -> dict[str, str]:
    """The extra Spark configs of this pytest run: ``SPARKPERSIST_TEST_CONF="k=v,k=v"`` (see the Makefile)."""
    pairs = (pair.partition("=") for pair in os.environ.get("SPARKPERSIST_TEST_CONF", "").split(",") if pair)
    return {key.strip(): value.strip() for key, _, value in pairs}


class Server(NamedTuple):
    """A server the tests started: its port on ``HOST`` and the shard root it serves."""
    port: int
    root: Path

    @property
    def connect_url(self) -> str:
        return f"sc://{HOST}:{self.port}"


@contextmanager
def serving(process: subprocess.Popen, port: int, root: Path, log_path: Path, timeout_s: float) -> Iterator[Server]:
    """The server ``process`` once it listens on ``port``; stopped afterwards."""
    try:
        try:
            wait_until_ready(process, HOST, port, timeout_s=timeout_s)
        except ThriftServerError as e:
            pytest.fail(f"{e}\n--- server log ---\n{log_path.read_text(errors='replace')[-6000:]}")
        yield Server(port, root)
    finally:
        stop(process)


@pytest.fixture(scope="module")
def connect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Spark's Connect server, started from the installed pyspark with the jar, over a fresh root."""
    root = tmp_path_factory.mktemp("connect_shards")
    port = free_port()
    command = [spark_script("spark-submit"), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
               "--master", "local[2]", "--jars", sparkpersist.jar_path(),
               "--conf", f"spark.sql.extensions={EXTENSIONS}",
               "--conf", f"spark.sql.catalog.persist={CATALOG_CLASS}",
               "--conf", f"{ROOT_KEY}={root}",
               "--conf", f"spark.connect.grpc.binding.address={HOST}",
               "--conf", f"spark.connect.grpc.binding.port={port}",
               "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.shuffle.partitions=4"]
    for key, value in run_conf().items():
        command += ["--conf", f"{key}={value}"]
    log_path = root / "server.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, cwd=root, env=spark_env(), stdout=log, stderr=log)
        with serving(process, port, root, log_path, timeout_s=180) as server:
            yield server


@pytest.fixture(scope="module")
def thrift_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Spark's Thrift server (sparkpersist's launcher) over a fresh root."""
    root = tmp_path_factory.mktemp("thrift_shards")
    log_path = root.parent / f"{root.name}.thriftserver.log"
    port = free_port()
    with open(log_path, "wb") as log:
        process = start_thriftserver(str(root), port=port, host=HOST, master="local[2]", log=log,
                                     conf={"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2",
                                           **run_conf()})
        with serving(process, port, root, log_path, timeout_s=150) as server:
            yield server
