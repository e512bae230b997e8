"""Shards on S3 (through S3A) against a local S3 server: the commit race, a writer killed mid-write,
and commit latency on S3A against ``file:``.

Usage: python bench/s3a_bench.py [processes] [appends_per_process] [kills] [latency_appends]
       (defaults 4 20 3 30; `make bench` runs it, `make s3a-jars` must have run)

1. Race: ``processes`` OS processes append ``appends_per_process`` batches each to one ``s3a://``
   shard at once (each retries a batch that loses the commit race). Every acknowledged batch must
   be in the final snapshot exactly once and no other rows may be there.
2. Kill: a writer appending 20 batches is killed with SIGKILL at a random moment in the 3 s after
   its first acknowledged append, ``kills`` times; after each, the shard must open and read, and hold every acknowledged batch whole and
   at most one more batch (the one in flight, committed but not yet acknowledged), also whole.
3. Latency: one session alternates one-row INSERTs into a shard on S3A and a shard on ``file:``;
   the medians are compared as a ratio.

Prints a table and writes bench/out/s3a.json; the S3 server listens on 127.0.0.1 only.
"""
from __future__ import annotations

import json
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from sparkpersist.thriftserver import spark_env

APP = Path(__file__).resolve().parents[1] / "tests" / "apps" / "s3a_app.py"
sys.path.insert(0, str(APP.parent))
from s3_server import local_s3  # noqa: E402  (the tests' S3 server helper)
OUT = Path(__file__).resolve().parent / "out"
BUCKET = "shards-bucket"
ROOT = f"s3a://{BUCKET}/shards"
ROWS = 10


def start(endpoint: str, *args: object) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(APP), endpoint, ROOT, *map(str, args)], env=spark_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen) -> tuple[dict, list[tuple[int, int]]]:
    out, err = process.communicate(timeout=1800)
    if process.returncode != 0:
        raise SystemExit(f"worker failed ({process.returncode}):\n{err[-4000:]}")
    return parse(out)


def parse(out: str) -> tuple[dict, list[tuple[int, int]]]:
    acks = [tuple(map(int, line.split()[1:3])) for line in out.splitlines() if line.startswith("ACK ")]
    results = [json.loads(line[len("RESULT "):]) for line in out.splitlines() if line.startswith("RESULT ")]
    return (results[-1] if results else {}), acks


def keys_of(endpoint: str, shard: str) -> list[int]:
    return finish(start(endpoint, "query", shard, 0))[0]["keys"]


def race(endpoint: str, processes: int, appends: int, tmp: Path) -> dict:
    shard = "race"
    began = time.perf_counter()
    workers = [start(endpoint, "append", shard, 1_000_000 * (p + 1), ROWS, appends, tmp / f"race{p}.done")
               for p in range(processes)]
    outcomes = [finish(w) for w in workers]
    seconds = time.perf_counter() - began
    acked = [a for _, acks in outcomes for a in acks]
    keys = keys_of(endpoint, shard)
    expected = sorted(k for first, rows in acked for k in range(first, first + rows))
    lost = len(set(expected) - set(keys))
    doubled = len(keys) - len(set(keys))
    extra = len(set(keys) - set(expected))
    return {"scenario": "race", "processes": processes, "appends_acknowledged": len(acked),
            "appends_expected": processes * appends, "retries": sum(o.get("retries", 0) for o, _ in outcomes),
            "rows": len(keys), "lost": lost, "doubled": doubled, "extra": extra, "seconds": round(seconds, 1),
            "ok": len(acked) == processes * appends and lost == doubled == extra == 0}


def kill(endpoint: str, round_no: int, rnd: random.Random) -> dict:
    shard = f"killed{round_no}"
    worker = start(endpoint, "append", shard, 0, ROWS, 20, "/dev/null")
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(worker.stdout), daemon=True)
    reader.start()
    while not any(line.startswith("ACK ") for line in list(lines)) and worker.poll() is None:
        time.sleep(0.05)
    delay = rnd.uniform(0.0, 3.0)  # after the first acknowledged append: mid-write or mid-commit
    time.sleep(delay)
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    reader.join(timeout=10)
    _, acked = parse("".join(lines))
    keys = keys_of(endpoint, shard) if acked else []
    batches = {k // ROWS * ROWS for k in keys}
    whole = all(sum(1 for k in keys if first <= k < first + ROWS) == ROWS for first in batches)
    acked_firsts = {first for first, _ in acked}
    in_flight = batches - acked_firsts
    ok = acked_firsts <= batches and whole and len(in_flight) <= 1 and len(keys) == len(set(keys))
    return {"scenario": f"kill -9 #{round_no + 1}", "killed_s_after_first_ack": round(delay, 1),
            "appends_acknowledged": len(acked), "batches_visible": len(batches),
            "unacknowledged_but_committed": len(in_flight), "rows": len(keys), "ok": ok}


def latency(endpoint: str, appends: int, tmp: Path) -> dict:
    result, _ = finish(start(endpoint, "latency", "latency", appends, tmp / "local"))
    s3a, local = (statistics.median(result["millis"][s]) for s in ("s3a", "file"))
    return {"scenario": "commit latency", "appends": appends, "s3a_median_ms": round(s3a, 1),
            "file_median_ms": round(local, 1), "s3a_over_file": round(s3a / local, 2), "ok": True}


def main(argv: list[str]) -> None:
    processes, appends, kills, latency_appends = (list(map(int, argv)) + [4, 20, 3, 30][len(argv):])[:4]
    rnd = random.Random(42)
    with local_s3(BUCKET) as endpoint, tempfile.TemporaryDirectory() as tmp:
        rows = [race(endpoint, processes, appends, Path(tmp))]
        rows += [kill(endpoint, i, rnd) for i in range(kills)]
        rows.append(latency(endpoint, latency_appends, Path(tmp)))
    for row in rows:
        print("  ".join(f"{k}={v}" for k, v in row.items()))
    OUT.mkdir(exist_ok=True)
    doc = {"benchmark": "s3a", "params": {"processes": processes, "appends": appends, "kills": kills,
                                          "latency_appends": latency_appends},
           "tables": [{"title": "Shards on S3A against a local S3 server", "columns": sorted({k for r in rows for k in r}),
                       "rows": rows, "notes": []}]}
    (OUT / "s3a.json").write_text(json.dumps(doc, indent=2))
    if not all(r["ok"] for r in rows):
        raise SystemExit("s3a bench: an invariant failed (see the rows above)")


if __name__ == "__main__":
    main(sys.argv[1:])
