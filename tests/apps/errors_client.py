"""Triggers every error case of ``error_cases`` over Spark Connect: ``python errors_client.py sc://host:port <root>``.

Prints one JSON object: per case, the class the error was raised as (its name and the package's classes it
is an instance of), its condition and its message. ``tests/test_errors.py`` checks it. Runs in its own
process: a Spark Connect session and a classic one do not share a Python process.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from pyspark.sql import SparkSession

import sparkpersist
from error_cases import CASES, trigger


def main(url: str, root: Path) -> None:
    spark = SparkSession.builder.remote(url).getOrCreate()
    # Every session a case creates stays referenced until the process exits: a Connect session that is
    # garbage collected closes its client in ``__del__``, and when that runs inside another session's
    # blocking gRPC call (pyspark 4.1), closing waits on the very call it interrupted and the client hangs.
    fresh_sessions: list[SparkSession] = []

    def fresh() -> SparkSession:
        fresh_sessions.append(SparkSession.builder.remote(url).create())
        return fresh_sessions[-1]

    out: dict = {"connect": type(spark).__module__, "cases": {}}
    for case in CASES:
        if "connect" not in case.surfaces:
            continue
        print(f"case {case.condition}", file=sys.stderr, flush=True)
        try:
            error = trigger(case, spark, root, "connect", fresh)
            out["cases"][case.condition] = {
                "class": type(error).__name__,
                "is": sorted(n for n in sparkpersist.__all__ if isinstance(getattr(sparkpersist, n), type)
                             and isinstance(error, getattr(sparkpersist, n))),
                "condition": error.getCondition(), "sql_state": error.getSqlState(), "message": str(error)}
        except Exception as e:  # reported, not raised: the test names every case that failed
            out["cases"][case.condition] = {"failed": f"{type(e).__name__}: {e}"[:3000]}
    print(json.dumps(out), flush=True)
    # Not spark.stop(): closing a Connect session waits for its finished streaming queries to expire in the
    # server's cache; the test stops the server.
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
