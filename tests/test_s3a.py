"""Shards on S3 through S3A, against an S3 server started here (moto's server mode, loopback only).

Commits on S3A use conditional writes (``If-None-Match: *``); the first test checks that the server
enforces them, so that the rest cannot pass against a server that would let two writers win.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from botocore.exceptions import ClientError

from sparkpersist.thriftserver import spark_env

from apps.s3_server import client, local_s3

APP = Path(__file__).parent / "apps" / "s3a_app.py"
BUCKET = "shards-bucket"
ROOT = f"s3a://{BUCKET}/shards"


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with local_s3(BUCKET) as url:
        yield url


def start(endpoint: str, *args: object) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(APP), endpoint, ROOT, *map(str, args)], env=spark_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=APP.parent)


def result(process: subprocess.Popen, timeout_s: float = 300) -> dict:
    out, err = process.communicate(timeout=timeout_s)
    lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
    assert process.returncode == 0 and lines, f"exit {process.returncode}\n{out}\n{err[-4000:]}"
    return json.loads(lines[-1][len("RESULT "):])


def test_the_server_enforces_if_none_match(endpoint: str) -> None:
    s3 = client(endpoint)
    s3.put_object(Bucket=BUCKET, Key="probe/v1", Body=b"first", IfNoneMatch="*")
    with pytest.raises(ClientError) as lost:
        s3.put_object(Bucket=BUCKET, Key="probe/v1", Body=b"second", IfNoneMatch="*")
    assert lost.value.response["ResponseMetadata"]["HTTPStatusCode"] == 412
    assert s3.get_object(Bucket=BUCKET, Key="probe/v1")["Body"].read() == b"first"


def test_appends_from_two_processes_a_pruned_query_and_explain(endpoint: str, tmp_path: Path) -> None:
    """Two processes race to create one shard and commit three appends; the first then reads it."""
    shard = "events_s3"
    a_done, b_done = tmp_path / "a.done", tmp_path / "b.done"
    a = start(endpoint, "append", shard, 1000, 20, 2, a_done, b_done, 2000)
    b = start(endpoint, "append", shard, 2000, 20, 1, b_done)
    read, other = result(a), result(b)
    acknowledged = read["acknowledged"] + other["acknowledged"]
    assert sorted(acknowledged) == [[1000, 20], [1020, 20], [2000, 20]]

    expected = sorted(k for start_k, rows in acknowledged for k in range(start_k, start_k + rows))
    assert sorted(read["keys"]) == expected  # every acknowledged append once: nothing lost, nothing doubled
    assert read["selected"] == list(range(2000, 2020))
    scan = read["scan"]
    assert scan["parts_total"] == 6 and scan["soft_violations"] == 0
    assert scan["parts_read"] == (6 if scan["mode"] == "soft" else 2)
    assert re.search(rf"PersistScan {shard} snapshot asOf=\d+ .*parts: {scan['parts_read']}/6", read["explain"])

    # Parts and state live in the bucket; a failed racer left no parts behind.
    keys = [o["Key"] for o in client(endpoint).list_objects_v2(Bucket=BUCKET, Prefix=f"shards/{shard}/")["Contents"]]
    assert sum(1 for k in keys if k.endswith(".parquet")) == 6
    assert any(k.endswith("/state/00000000000000000003.json") for k in keys)
    assert not any(k.endswith("/state/00000000000000000004.json") for k in keys)


def test_s3a_without_conditional_writes_refuses_to_commit(endpoint: str) -> None:
    out = result(start(endpoint, "unsafe", "unsafe_s3"))
    assert out["error"] == "InvalidInputError", out
    assert out["message"].startswith("[PERSIST_NO_ATOMIC_COMMIT] Cannot commit to ") and " SQLSTATE: 0A000" in out["message"]
    assert "sparkpersist knows no atomic create-if-absent on 's3a' stores" in out["message"]
    assert "fs.s3a.create.conditional.enabled=true" in out["message"]
    listed = client(endpoint).list_objects_v2(Bucket=BUCKET, Prefix="shards/unsafe_s3/")
    assert listed.get("KeyCount", 0) == 0


def test_hadoop_aws_matches_the_hadoop_pyspark_ships() -> None:
    import pyspark
    props = dict(line.split("=", 1) for line in (Path(__file__).parents[1] / "versions.properties")
                 .read_text().splitlines() if "=" in line and not line.startswith("#"))
    line = ".".join(pyspark.__version__.split(".")[:2])
    shipped = sorted(p.name for p in (Path(pyspark.__file__).parent / "jars").glob("hadoop-client-api-*.jar"))
    assert shipped == [f"hadoop-client-api-{props[f'line.{line}.hadoop']}.jar"]
