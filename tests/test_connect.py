"""The package and SQL over a real Spark Connect server started from the pinned pyspark with the jar."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

import sparkpersist
from sparkpersist._session import CATALOG_CLASS, EXTENSIONS, ROOT_KEY
from sparkpersist.thriftserver import spark_env, spark_script, stop, wait_until_ready

HOST = "127.0.0.1"
APPS = Path(__file__).resolve().parent / "apps"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def connect_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("connect_shards")
    port = free_port()
    extra = [pair for pair in os.environ.get("SPARKPERSIST_TEST_CONF", "").split(",") if pair]
    command = [spark_script("spark-submit"), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
               "--master", "local[2]", "--jars", sparkpersist.jar_path(),
               "--conf", f"spark.sql.extensions={EXTENSIONS}",
               "--conf", f"spark.sql.catalog.persist={CATALOG_CLASS}",
               "--conf", f"{ROOT_KEY}={root}",
               "--conf", f"spark.connect.grpc.binding.address={HOST}",
               "--conf", f"spark.connect.grpc.binding.port={port}",
               "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.shuffle.partitions=4"]
    for pair in extra:
        command += ["--conf", pair.strip()]
    log = open(root / "server.log", "wb")
    server = subprocess.Popen(command, cwd=root, env=spark_env(), stdout=log, stderr=log)
    try:
        wait_until_ready(server, HOST, port, timeout_s=180)
        yield f"sc://{HOST}:{port}"
    finally:
        stop(server)
        log.close()


def test_a_connect_client_creates_writes_updates_merges_deletes_reads_and_compacts(connect_url: str) -> None:
    done = subprocess.run([sys.executable, str(APPS / "connect_client.py"), connect_url],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["connect"].startswith("pyspark.sql.connect")
    assert out["after_append"] == [[1, 10.0, "a"], [2, 20.0, "b"], [2, 20.0, "b"], [3, 30.0, "c"]]
    assert out["parts_after_append"] >= 2  # max_rows_per_part = 2 was honored
    lower, upper, rows = out["update_batch"]
    assert upper == lower + 11 and rows == 2
    assert out["after_update"] == [[1, 10.0, "a"], [2, 20.0, "b"], [2, 20.0, "b"], [3, 33.0, "c"]]
    assert out["after_merge"] == [[1, 11.0, "u"], [2, 20.0, "b"], [2, 20.0, "b"], [3, 33.0, "c"], [4, 40.0, "new"]]
    assert out["after_delete"] == [[1, 11.0, "u"], [3, 33.0, "c"], [4, 40.0, "new"]]
    [scan] = out["last_scans"]
    assert scan["shard"] == "acc" and scan["parts_pruned"] > 0
    if scan["mode"] == "soft":  # `make test`'s second pass: every part read, every skip verified
        assert scan["parts_read"] == scan["parts_total"] and scan["soft_violations"] == 0
    else:
        assert scan["mode"] == "on" and scan["parts_read"] + scan["parts_pruned"] == scan["parts_total"]
    assert out["compact"]["batches_after"] < out["compact"]["batches_before"]
    assert out["after_compact"] == out["after_delete"]
    assert out["shards"] == ["acc"]
    assert out["index_columns"] == ["tag"]
    assert "Spark Connect" in out["register_monotone"]
