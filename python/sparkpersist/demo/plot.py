"""The demo's picture: every part along the event-time axis, read or skipped, one panel per query."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from .queries import QueryResult

READ_COLOR = "#d95f02"
SKIPPED_COLOR = "#c8c8c8"


@dataclass(frozen=True)
class PartSpan:
    """A part (its ``key`` in the parts table) and the range of its ``column``, in epoch ms."""

    key: str
    lower_ms: int
    upper_ms: int


def part_spans(spark: SparkSession, shard: str, column: str = "event_ts") -> list[PartSpan]:
    """The range of timestamp ``column`` in each part of ``shard`` (from its statistics), in write order.

    Raises:
        ValueError: a part has no bounds for ``column`` (not a timestamp column, or no statistics).
    """
    import sparkpersist

    stats = (sparkpersist.parts(spark, shard)
             .select("key", F.filter("column_stats", lambda c: c["column"] == column)[0].alias("s"))
             # Bounds are rendered in the session time zone; parsing them back in it is exact.
             .select("key", F.unix_millis(F.to_timestamp("s.lower")).alias("lower_ms"),
                     F.unix_millis(F.to_timestamp("s.upper")).alias("upper_ms"))
             .collect())
    missing = [r.key for r in stats if r.lower_ms is None or r.upper_ms is None]
    if missing:
        raise ValueError(f"{len(missing)} parts of {shard!r} (e.g. {missing[0]}) have no {column} bounds; "
                         "pass the name of a timestamp column with statistics.")
    return [PartSpan(r.key, r.lower_ms, r.upper_ms) for r in stats]


def plot_parts(spans: list[PartSpan], results: list[QueryResult], path: Path) -> None:
    """Writes a PNG to ``path``: per query, each part as a segment over its event-time range, coloured
    by whether the query read it; a dashed line marks the query's ``mz_now()``."""
    from matplotlib import dates
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    x = dates.date2num(np.array([[s.lower_ms, s.upper_ms] for s in spans], dtype="datetime64[ms]"))
    y = np.arange(len(spans))
    segments = np.stack([np.column_stack([x[:, 0], y]), np.column_stack([x[:, 1], y])], axis=1)
    fig = Figure(figsize=(11, 1.9 * len(results) + 0.8), layout="constrained")
    axes = fig.subplots(len(results), 1, sharex=True, squeeze=False)[:, 0]
    for ax, result in zip(axes, results):
        read = np.isin([s.key for s in spans], result.part_keys_read)
        ax.add_collection(LineCollection(segments[~read], colors=SKIPPED_COLOR, linewidths=2))
        ax.add_collection(LineCollection(segments[read], colors=READ_COLOR, linewidths=3))  # on top
        ax.axvline(dates.date2num(np.datetime64(result.as_of, "ms")), color="black", linestyle="--", linewidth=0.8)
        ax.set_title(f"{result.name}: {result.parts_read} of {result.parts_total} parts read",
                     loc="left", fontsize=10)
        ax.set_ylabel("parts", fontsize=8)
        ax.set_ylim(-1, len(spans))
        ax.tick_params(labelsize=8)
    axes[-1].set_xlim(x.min(), x.max() + (x.max() - x.min()) * 0.01)
    axes[-1].xaxis_date()
    axes[-1].set_xlabel("event_ts (UTC): each part spans its min..max; parts stacked in write order")
    fig.legend(handles=[Line2D([], [], color=READ_COLOR, label="read"),
                        Line2D([], [], color=SKIPPED_COLOR, label="skipped"),
                        Line2D([], [], color="black", linestyle="--", label="mz_now()")],
               loc="outside upper right", ncols=3, fontsize=9)
    fig.savefig(path, dpi=100)
