"""The demo's queries: temporal filters run with pushdown off and on, the same rows asserted."""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

from pyspark.sql import SparkSession

from .events import DAY_MS, DemoConfig

PUSHDOWN_MODE = "spark.sparkpersist.pushdown.mode"


@dataclass(frozen=True)
class DemoQuery:
    """A named filter over the demo shard (a SQL condition)."""

    name: str
    condition: str


def demo_queries(config: DemoConfig) -> list[DemoQuery]:
    """The demo's filters. ``mz_now()`` is the shard's latest complete time, the end of its last day."""
    mid_day = datetime.fromtimestamp((config.start_ms + config.days // 2 * DAY_MS) / 1000, timezone.utc)
    return [
        DemoQuery("last 24 h (mz_now)", "mz_now() <= event_ts + INTERVAL 1 DAY"),
        DemoQuery("last 7 days (mz_now)", "event_ts >= mz_now() - INTERVAL 7 DAYS"),
        DemoQuery("one day (date_trunc)", f"date_trunc('DAY', event_ts) = TIMESTAMP '{mid_day:%Y-%m-%d}'"),
        DemoQuery("last 3 days (epoch ms)", f"unix_millis(event_ts) >= unix_millis(mz_now()) - 3 * {DAY_MS}"),
        DemoQuery("US, amount > 100, 30 days",
                  "country = 'US' AND amount > 100 AND mz_now() <= event_ts + INTERVAL 30 DAYS"),
        # The two JSON paths read every part until the JSON statistics land (see events.ensure_shard).
        DemoQuery("VARIANT payload.ts, 7 days",
                  f"variant_get(payload, '$.ts', 'bigint') >= unix_millis(mz_now()) - 7 * {DAY_MS}"),
        DemoQuery("JSON text $.ts, 2 days",
                  f"CAST(get_json_object(payload_json, '$.ts') AS BIGINT) >= unix_millis(mz_now()) - 2 * {DAY_MS}"),
    ]


@dataclass(frozen=True)
class QueryResult:
    """One demo query, run with pushdown off and on: the rows (both), what the `on` scan read, median times."""

    name: str
    sql: str
    rows_on: int
    rows_off: int
    as_of: int
    parts_read: int
    parts_total: int
    bytes_read: int
    bytes_total: int
    seconds_on: float
    seconds_off: float
    part_keys_read: tuple[str, ...]

    @property
    def speedup(self) -> float:
        return self.seconds_off / self.seconds_on


def _sql(config: DemoConfig, query: DemoQuery) -> str:
    # The count and an order-independent checksum of the rows' columns identify the result.
    return (f"SELECT count(*) AS n, sum(CAST(xxhash64(event_ts, user_id, country, amount) AS DECIMAL(20, 0))) "
            f"AS checksum FROM {config.table} WHERE {query.condition}")


def _run(spark: SparkSession, sql: str, mode: str) -> tuple[tuple[int, Decimal], float, dict[str, Any]]:
    """Runs ``sql`` with pushdown ``mode``: its (count, checksum), seconds taken, and its one scan report."""
    import sparkpersist

    spark.conf.set(PUSHDOWN_MODE, mode)
    start = time.perf_counter()
    row = spark.sql(sql).first()
    seconds = time.perf_counter() - start
    [scan] = sparkpersist.last_scans(spark)
    return (row.n, row.checksum), seconds, scan


def run_query(spark: SparkSession, config: DemoConfig, query: DemoQuery, runs: int) -> QueryResult:
    """Runs ``query`` ``runs`` times with pushdown off, then on; both must give the same rows every time.

    Raises:
        RuntimeError: pushdown changed the result, a bug in sparkpersist (please report it with the query).
    """
    sql = _sql(config, query)
    seconds: dict[str, list[float]] = {"off": [], "on": []}
    results: dict[str, tuple[int, Decimal]] = {}
    scan: dict[str, Any] = {}
    for _ in range(runs):
        for mode in ("off", "on"):
            results[mode], elapsed, scan = _run(spark, sql, mode)
            seconds[mode].append(elapsed)
        if results["on"] != results["off"]:
            raise RuntimeError(f"{query.name}: pushdown on gave (rows, checksum) {results['on']}, off gave "
                               f"{results['off']}. This is a sparkpersist bug; please report it with: {sql}")
    return QueryResult(query.name, sql, results["on"][0], results["off"][0], scan["as_of"],
                       scan["parts_read"], scan["parts_total"], scan["bytes_read"], scan["bytes_total"],
                       statistics.median(seconds["on"]), statistics.median(seconds["off"]),
                       tuple(scan["part_keys_read"]))


def run_queries(spark: SparkSession, config: DemoConfig, runs: int = 3) -> list[QueryResult]:
    """Runs every demo query (see :func:`run_query`), then restores the session's pushdown mode."""
    previous = spark.conf.get(PUSHDOWN_MODE, None)
    spark.sql(f"SELECT count(*) FROM {config.table}").first()  # warms the JVM up before anything is timed
    try:
        return [run_query(spark, config, q, runs) for q in demo_queries(config)]
    finally:
        if previous is None:
            spark.conf.unset(PUSHDOWN_MODE)
        else:
            spark.conf.set(PUSHDOWN_MODE, previous)


def format_table(results: list[QueryResult]) -> str:
    """The results as an aligned text table: parts and bytes read with pushdown on, median times."""
    header = ("query", "rows", "parts read", "MB read", "on (s)", "off (s)", "speed-up")
    lines = [(r.name, f"{r.rows_on:,}", f"{r.parts_read} / {r.parts_total}",
              f"{r.bytes_read / 1e6:.1f} / {r.bytes_total / 1e6:.1f}",
              f"{r.seconds_on:.2f}", f"{r.seconds_off:.2f}", f"{r.speedup:.1f}x") for r in results]
    widths = [max(len(row[i]) for row in [header, *lines]) for i in range(len(header))]

    def fmt(row: tuple[str, ...]) -> str:
        return "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))

    return "\n".join([fmt(header), "  ".join("-" * w for w in widths), *map(fmt, lines)])
