"""The package and SQL over a real Spark Connect server started from the pinned pyspark with the jar."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import Server

from apps import history_scenario

APPS = Path(__file__).resolve().parent / "apps"


@pytest.fixture(scope="module")
def connect_url(connect_server: Server) -> str:
    return connect_server.connect_url


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
    # retention_ms=0: the batches wholly below since are the settled history (a window without a
    # start); the newest, the DELETE's, is in today's open window.
    settled, today = out["compact_windows"]
    assert settled == [None, "merged", "settled below since: packed up to target_bytes and consolidated"]
    assert today[1:] == ["none", "below the minimum size: fewer than 8 batches of one size tier"]
    assert today[0] % 86_400_000 == 0
    assert out["after_compact"] == out["after_delete"]
    assert out["shards"] == ["acc"]
    assert out["index_columns"] == ["tag"]
    assert "Spark Connect" in out["register_monotone"]


@pytest.fixture(scope="module")
def races(connect_url: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, str(APPS / "connect_writers.py"), connect_url],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def own_batches(race: dict[str, Any], rows_each: int) -> None:
    """Each write's returned batch is the batch of ``persist.<shard>.batches`` that holds exactly its rows."""
    listed = {b["batch_id"]: b for b in race["batches"]}
    for writer, result in race["written"].items():
        batch = result["batch"]
        assert batch["id"] in listed, f"{writer} got {batch['id']}, no batch of the shard"
        row = listed[batch["id"]]
        assert (batch["lower"], batch["upper"], batch["rows"]) == (row["lower"], row["upper"], row["row_count"])
        inside = [w for w, time in race["updates"] if batch["lower"] <= time < batch["upper"]]
        assert inside == [writer] * rows_each, f"{writer}'s batch [{batch['lower']}, {batch['upper']}) holds {inside}"
        assert [w for w, _ in race["updates"]].count(writer) == rows_each, f"{writer}'s rows were written once"


def test_concurrent_connect_writers_each_get_the_batch_holding_exactly_their_rows(races: dict[str, Any]) -> None:
    race = races["concurrent"]
    assert race["failed"] == []
    assert sorted(race["written"]) == ["w0", "w1", "w2", "w3"]
    assert len(race["batches"]) == 4, "one batch per writer: an attempt that lost the race wrote nothing"
    own_batches(race, races["rows_each"])


def test_a_connect_write_is_committed_and_timed_by_the_jvm_whatever_commits_between_its_statements(
        races: dict[str, Any]) -> None:
    # Another writer commits before and after each statement of the writing client: a client that
    # looked its batch up afterwards would get the other writer's, and one that stamped the commit
    # time itself (from an upper it read earlier) would have its write refused as below the upper.
    race = races["interleaved"]
    assert race["failed"] == []
    own_batches(race, races["rows_each"])
    writers = [w for w, _ in race["updates"]]
    assert writers.count("intruder") == len(race["batches"]) - 2 >= 2


def test_history_and_restore_over_connect(connect_url: str) -> None:
    """DESCRIBE HISTORY and RESTORE TABLE reach the server's parser; the restore equals VERSION AS OF and a Parquet copy."""
    done = subprocess.run([sys.executable, str(APPS / "connect_history.py"), connect_url],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    history_scenario.check(json.loads(done.stdout.strip().splitlines()[-1]))
