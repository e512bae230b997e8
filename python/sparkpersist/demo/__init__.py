"""The demo behind ``make demo``: months of events in a shard of hundreds of parts, queried with
temporal filters, pushdown off and on.

It writes the shard once (re-runs reuse it), runs each query a few times in both modes
asserting the same rows, prints a table, and writes the results as JSON and a PNG of the parts
each query read (see :mod:`.events`, :mod:`.queries`, :mod:`.plot`).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from pyspark.sql import SparkSession

from .events import DemoConfig, ensure_shard
from .plot import part_spans, plot_parts
from .queries import QueryResult, format_table, run_queries

__all__ = ["DemoConfig", "DemoOutput", "QueryResult", "run", "run_demo"]


@dataclass(frozen=True)
class DemoOutput:
    """What one demo run measured and where it wrote it."""

    results: list[QueryResult]
    table: str
    json_path: Path
    png_path: Path


def run(spark: SparkSession, config: DemoConfig, out_dir: Path, *, runs: int = 3,
        progress: bool = True) -> DemoOutput:
    """Writes (or reuses) the demo shard in ``spark``'s root, runs the queries ``runs`` times per
    pushdown mode, and writes ``demo.json`` and ``demo.png`` under ``out_dir``."""
    ensure_shard(spark, config, progress=progress)
    results = run_queries(spark, config, runs)
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, png_path = out_dir / "demo.json", out_dir / "demo.png"
    json_path.write_text(json.dumps({
        "config": asdict(config),
        "runs": runs,
        "queries": [{**asdict(r), "speedup": r.speedup} for r in results],
    }, indent=2) + "\n")
    plot_parts(part_spans(spark, config.shard), results, png_path)
    return DemoOutput(results, format_table(results), json_path, png_path)


def run_demo(data_dir: str) -> int:
    """Entry point of ``python -m sparkpersist demo``: a local[2] session with its shards under ``data_dir``."""
    import sparkpersist

    root = Path(data_dir).resolve()
    config = DemoConfig()
    spark = sparkpersist.session(str(root), master="local[2]", app_name="sparkpersist-demo",
                                 **{"spark.sql.session.timeZone": "UTC", "spark.ui.showConsoleProgress": "false",
                                    "spark.sql.shuffle.partitions": "2"})
    spark.sparkContext.setLogLevel("ERROR")
    try:
        output = run(spark, config, root)
        parts = output.results[0].parts_total
        print(f"\nShard {config.table} under {root}: {config.days} daily batches, "
              f"{config.days * config.events_per_day:,} events, {parts} parts.\n"
              "Each query ran with spark.sparkpersist.pushdown.mode off and on: same rows; times are medians of "
              "3 runs;\nparts and MB read are those of pushdown on.\n")
        print(output.table)
        print(f"\nresults: {output.json_path}\nparts read per query: {output.png_path}")
    finally:
        spark.stop()
    return 0
