"""The demo (``make demo``) on a tiny shard: its queries, table, JSON and PNG."""
from __future__ import annotations

import json
import pytest

import sparkpersist
from sparkpersist.demo import DemoConfig, DemoOutput, run
from sparkpersist.demo.events import ensure_shard
from sparkpersist.demo.queries import PUSHDOWN_MODE, demo_queries

FAIL_ON_VIOLATION = "spark.sparkpersist.pushdown.soft.failOnViolation"
CONFIG = DemoConfig(shard="demo_tiny", days=6, events_per_day=400, tasks_per_day=1, rows_per_part=100)


@pytest.fixture(scope="module")
def demo(spark, tmp_path_factory: pytest.TempPathFactory) -> DemoOutput:
    return run(spark, CONFIG, tmp_path_factory.mktemp("demo"), runs=1, progress=False)


def test_every_query_returns_the_same_rows_with_pushdown_on_and_off(demo) -> None:
    assert [r.name for r in demo.results] == [q.name for q in demo_queries(CONFIG)]
    for r in demo.results:
        assert r.rows_on == r.rows_off > 0, r.name
        assert r.parts_total == 24  # 6 days x 4 parts of 100 rows
        assert len(r.part_keys_read) == r.parts_read <= r.parts_total


def test_window_queries_skip_parts(demo) -> None:
    by_name = {r.name: r for r in demo.results}
    for name in ("last 24 h (mz_now)", "one day (date_trunc)", "last 3 days (epoch ms)"):
        assert by_name[name].parts_read < by_name[name].parts_total, name
    # Events are generated from hashes, so the shard's contents, and its parts, are the same every run.
    assert (by_name["last 24 h (mz_now)"].rows_on, by_name["last 24 h (mz_now)"].parts_read) == (389, 4)


def test_json_path_queries_prune_under_the_default_budget(demo) -> None:
    # The stats of both payloads (JSON text and VARIANT) fit the default 1 KB budget in the binary
    # encoding untrimmed; as JSON they needed ~1.4 KB, the budget cut `ts` away and every part was read.
    by_name = {r.name: r for r in demo.results}
    json_text = by_name["JSON text $.ts, 2 days"]
    assert (json_text.parts_read, json_text.parts_total) == (8, 24)


def test_table_lists_every_query(demo) -> None:
    header, rule, *lines = demo.table.splitlines()
    assert header.split()[:2] == ["query", "rows"]
    assert len({len(header), len(rule), *map(len, lines)}) == 1, "columns are aligned"
    assert [line[:len(r.name)] for line, r in zip(lines, demo.results)] == [r.name for r in demo.results]
    assert f"{demo.results[0].parts_read} / 24" in lines[0]


def test_json_and_png_are_written(demo) -> None:
    saved = json.loads(demo.json_path.read_text())
    assert saved["config"]["shard"] == CONFIG.shard
    assert [q["rows_on"] for q in saved["queries"]] == [r.rows_on for r in demo.results]
    assert demo.png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert demo.png_path.stat().st_size > 10_000


def test_every_query_passes_soft_pushdown_with_fail_on_violation(spark, demo, session_conf) -> None:
    # The demo sets pushdown off and on itself, so make test's soft pass (soft mode and failOnViolation
    # for the whole session) never runs its queries soft: this test does, in both passes. Soft mode
    # reads the parts pushdown would skip and fails the query if one of them holds a passing row.
    for r in demo.results:
        with session_conf(PUSHDOWN_MODE, "off"):
            off = spark.sql(r.sql).first()
        with session_conf(FAIL_ON_VIOLATION, "true"), session_conf(PUSHDOWN_MODE, "soft"):
            soft = spark.sql(r.sql).first()
            [scan] = sparkpersist.last_scans(spark)
        assert (soft.n, soft.checksum) == (off.n, off.checksum) and soft.n == r.rows_on, r.name
        assert (scan["mode"], scan["soft_violations"]) == ("soft", 0), r.name
        # Every part read, those pushdown on skips only to be checked.
        assert (scan["parts_read"], scan["parts_pruned"]) == (24, 24 - r.parts_read), r.name


def test_rerun_reuses_the_shard(spark, demo) -> None:
    keys = [r.key for r in sparkpersist.parts(spark, CONFIG.shard).collect()]
    ensure_shard(spark, CONFIG, progress=False)
    assert [r.key for r in sparkpersist.parts(spark, CONFIG.shard).collect()] == keys


def test_shard_of_another_layout_is_written_again(spark, demo, capsys) -> None:
    smaller = DemoConfig(shard=CONFIG.shard, days=2, events_per_day=300, tasks_per_day=1, rows_per_part=300)
    ensure_shard(spark, smaller, progress=False)
    assert "holds data of another demo layout" in capsys.readouterr().out
    rows = [(r.row_count, r.batch_upper) for r in sparkpersist.parts(spark, CONFIG.shard).collect()]
    assert rows == [(300, smaller.ingest_ms(0) + 1), (300, smaller.ingest_ms(1) + 1)]

