"""A sparkpersist application on an ``s3a://`` root, run as its own process by ``test_s3a.py``.

    s3a_app.py <endpoint> <root> append <shard> <first_k> <rows> <batches> <done_file> [<wait_file> <min_k>]
        appends ``batches`` batches of ``rows`` rows (k = first_k, first_k + 1, ...), creating the
        shard if needed and retrying a batch that loses the commit race, then touches ``done_file``;
        with ``wait_file``, waits for it, then reads the shard's keys, the scan report and EXPLAIN
        of ``SELECT k ... WHERE k >= min_k``. Prints {"acknowledged": [[first_k, rows], ...], ...}
    s3a_app.py <endpoint> <root> query <shard> <min_k>
        the same read alone
    s3a_app.py <endpoint> <root> unsafe <shard>
        writes with S3A's conditional create switched off; prints the error it gets
    s3a_app.py <endpoint> <root> latency <shard> <appends> <local_root>
        alternates one-row INSERTs into the shard on S3 and into a shard of the same name under
        ``local_root`` (a second catalog, ``persist_local``, on ``file:``), in one session; prints
        each store's append latencies in ms

Each acknowledged append is also printed at once as ``ACK <first_k> <rows>``, so that a process
killed part-way still tells which of its appends were acknowledged.

Extra Spark configs come from ``SPARKPERSIST_TEST_CONF`` (``k=v,k=v``), as in the other apps.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pyspark

import sparkpersist
from sparkpersist._jar import spark_line

# `make s3a-jars` fetches the hadoop-aws of each Spark line's Hadoop into its own directory.
JARS = Path(__file__).resolve().parents[2] / "build" / "s3a" / f"spark-{spark_line(pyspark.__version__)}"


def s3a_conf(endpoint: str) -> dict[str, str]:
    """S3A over plain HTTP with path-style access to the test server, hadoop-aws on the driver's classpath."""
    jars = sorted(str(p) for p in JARS.glob("*.jar"))
    names = " ".join(Path(j).name for j in jars)
    assert "hadoop-aws-" in names and "bundle-" in names, \
        f"hadoop-aws and the AWS SDK bundle are not in {JARS}: run `make s3a-jars SPARK={spark_line(pyspark.__version__)}`"
    conf = {
        "spark.driver.extraClassPath": os.pathsep.join(jars),
        "spark.hadoop.fs.s3a.endpoint": endpoint,
        "spark.hadoop.fs.s3a.endpoint.region": "us-east-1",
        "spark.hadoop.fs.s3a.path.style.access": "true",
        "spark.hadoop.fs.s3a.connection.ssl.enabled": "false",
        "spark.hadoop.fs.s3a.access.key": "test",
        "spark.hadoop.fs.s3a.secret.key": "test",
        "spark.ui.enabled": "false",
        "spark.sql.shuffle.partitions": "2",
    }
    for pair in filter(None, os.environ.get("SPARKPERSIST_TEST_CONF", "").split(",")):
        key, _, value = pair.partition("=")
        conf[key.strip()] = value.strip()
    return conf


def append(spark, shard: str, first_k: int, rows: int, batches: int) -> dict:
    acknowledged, retries = [], 0
    for b in range(batches):
        start = first_k + b * rows
        df = spark.range(start, start + rows, 1, 2).selectExpr("id AS k", "concat('v', id) AS v")
        while True:
            try:
                sparkpersist.write(df, shard, order_by=["k"])
                acknowledged.append([start, rows])
                print(f"ACK {start} {rows}", flush=True)
                break
            except (sparkpersist.UpperMismatchError, sparkpersist.ShardExistsError):
                retries += 1  # lost the race to commit (or to create the shard): nothing was written
                time.sleep(0.05)
    return {"acknowledged": acknowledged, "retries": retries}


def wait_for(path: Path, timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {path}")
        time.sleep(0.2)


def query(spark, shard: str, min_k: int) -> dict:
    keys = [r.k for r in spark.sql(f"SELECT k FROM persist.{shard}").collect()]
    sql = f"SELECT k FROM persist.{shard} WHERE k >= {min_k}"
    selected = sorted(r.k for r in spark.sql(sql).collect())
    [scan] = sparkpersist.last_scans(spark)
    plan = spark.sql("EXPLAIN " + sql).collect()[0][0]
    return {"keys": keys, "selected": selected, "scan": scan, "explain": plan}


def latency(spark, shard: str, appends: int) -> dict:
    for catalog in ("persist", "persist_local"):
        spark.sql(f"CREATE TABLE IF NOT EXISTS {catalog}.{shard} (k BIGINT, v STRING)")
    millis: dict[str, list[float]] = {"s3a": [], "file": []}
    for i in range(appends):
        for store, catalog in (("s3a", "persist"), ("file", "persist_local")):
            start = time.perf_counter()
            spark.sql(f"INSERT INTO {catalog}.{shard} VALUES ({i}, 'v{i}')")
            millis[store].append((time.perf_counter() - start) * 1000)
    return {"millis": millis}


def unsafe(spark, shard: str) -> dict:
    try:
        sparkpersist.write(spark.range(3).selectExpr("id AS k", "'x' AS v"), shard)
        return {"error": None}
    except sparkpersist.SparkPersistError as e:
        return {"error": type(e).__name__, "message": str(e)}


def main(argv: list[str]) -> None:
    endpoint, root, mode, shard, *args = argv
    conf = s3a_conf(endpoint)
    if mode == "unsafe":
        conf["spark.hadoop.fs.s3a.create.conditional.enabled"] = "false"
    if mode == "latency":
        conf["spark.sql.catalog.persist_local"] = "sparkpersist.catalog.PersistCatalog"
        conf["spark.sql.catalog.persist_local.root"] = Path(args[1]).resolve().as_uri()
    spark = sparkpersist.session(root, master="local[2]", app_name=f"s3a-{mode}", **conf)
    spark.sparkContext.setLogLevel("ERROR")
    try:
        if mode == "append":
            first_k, rows, batches, done, *then_query = args
            out = append(spark, shard, int(first_k), int(rows), int(batches))
            Path(done).touch()
            if then_query:
                wait_file, min_k = then_query
                wait_for(Path(wait_file))
                out.update(query(spark, shard, int(min_k)))
        elif mode == "query":
            out = query(spark, shard, int(args[0]))
        elif mode == "latency":
            out = latency(spark, shard, int(args[0]))
        elif mode == "unsafe":
            out = unsafe(spark, shard)
        else:
            raise SystemExit(f"unknown mode {mode!r}")
        print("RESULT " + json.dumps(out, default=str))
    finally:
        spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
