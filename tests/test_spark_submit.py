"""spark-submit of a small application with the jar, the extensions and the catalog given as confs."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Optional

import sparkpersist
from sparkpersist.thriftserver import spark_env, spark_script

from apps import scenario
from conftest import run_conf

APP = Path(__file__).parent / "apps" / "pruning_app.py"


def pushdown_mode() -> str:
    """The pushdown mode the servers and applications of this run use; the scenario covers ``on`` and ``soft``."""
    mode = run_conf().get("spark.sparkpersist.pushdown.mode", "on")
    assert mode in ("on", "soft"), f"the interface scenario has no expectations for pushdown mode {mode!r}"
    return mode


def submit_app(master: str, workdir: Path, conf: Optional[Mapping[str, str]] = None, timeout_s: float = 240) -> dict:
    """Runs ``apps/pruning_app.py`` with pyspark's spark-submit; returns the JSON it printed.

    The sparkpersist confs are the ones a user passes by hand; :func:`run_conf` and ``conf``
    add others. The working
    directory is ``workdir`` so that nothing lands in the repository.
    """
    root = workdir / "shards"
    root.mkdir()
    command = [spark_script("spark-submit"), "--master", master,
               "--jars", sparkpersist.jar_path(),
               "--conf", "spark.sql.extensions=sparkpersist.PersistExtensions",
               "--conf", "spark.sql.catalog.persist=sparkpersist.catalog.PersistCatalog",
               "--conf", f"spark.sql.catalog.persist.root={root}",
               "--conf", "spark.ui.enabled=false"]
    for key, value in {**run_conf(), **(conf or {})}.items():
        command += ["--conf", f"{key}={value}"]
    command.append(str(APP))
    # The driver runs this interpreter (it has pyspark and sparkpersist installed).
    env = spark_env() | {"PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    done = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True, timeout=timeout_s)
    results = [line[len("RESULT "):] for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and len(results) == 1, (
        # The application's own output and traceback are on stdout (spark-submit merges them).
        f"spark-submit exited with {done.returncode}\n--- stdout ---\n{without_stack_frames(done.stdout)[-6000:]}"
        f"\n--- stderr (JVM stack frames left out) ---\n{without_stack_frames(done.stderr)[-4000:]}")
    return json.loads(results[0])


def without_stack_frames(log: str) -> str:
    """``log`` without its JVM stack frame lines (``\tat ...``), to keep failure messages readable."""
    return "\n".join(line for line in log.splitlines() if not line.lstrip().startswith("at "))


def check_scenario(result: dict) -> None:
    """Asserts the scenario's exact results: rows, as-of, pruning (EXPLAIN and scan report)."""
    (lower1, upper1, rows1, bytes1), (lower2, upper2, rows2, bytes2) = result["batches"]
    assert (lower1, rows1, lower2, rows2) == (0, 2, upper1, 2)
    as_of = upper2 - 1
    assert result["as_of"] == [[as_of]]
    assert result["window"] == [list(row) for row in scenario.WINDOW_ROWS]
    mode = pushdown_mode()
    assert result["scan_summaries"] == [scenario.window_scan_summary(bytes1, bytes2, mode)]
    [scan] = result["scans"]
    assert scan.pop("pruning_ms") >= 0
    # Soft mode prunes the same part but reads both, and verifies that the pruned one has no row in the window.
    read_all = mode == "soft"
    keys = scan.pop("part_keys_read")
    assert scan.pop("part_keys_proven_true") == ([] if mode == "off" else [keys[-1]])
    assert len(keys) == (2 if read_all else 1) and all(k.startswith("parts/") and k.endswith(".parquet") for k in keys)
    assert scan == {"shard": scenario.SHARD, "as_of": as_of, "mode": mode, "parts_total": 2,
                    "parts_read": 2 if read_all else 1, "parts_pruned": 1, "bytes_total": bytes1 + bytes2,
                    "bytes_read": bytes1 + bytes2 if read_all else bytes2, "soft_violations": 0,
                    "segments_skipped": 0, "parts_runtime_pruned": 0,
                    # Every event of the recent part lies in the window: the filter is proven true on it.
                    "parts_proven_true": 0 if mode == "off" else 1, "parts_from_stats": 0}


def test_spark_submit_local(tmp_path: Path) -> None:
    result = submit_app("local[2]", tmp_path)
    assert (result["master"], result["executor_jvms"], result["in_executor_jvm"]) == ("local[2]", 0, [[False]])
    check_scenario(result)
