"""Draws bench/out/<name>.png from the JSON the JVM benchmarks wrote in bench/out/.

Usage: python bench/plot.py [out_dir]   (default: bench/out next to this script)
Each JSON is {"benchmark", "params", "tables": [{"title", "columns", "rows", "notes"}]}; a
missing JSON is skipped with a note, so any subset of benchmarks can be plotted.
"""

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SYSTEMS = ["ours", "delta", "parquet"]


def rows(doc):
    return doc["tables"][0]["rows"]


def history(doc, ax_time, ax_bytes, what="7-day mz_now() window"):
    for mode, style in (("on", "o-"), ("off", "s--")):
        rs = [r for r in rows(doc) if r["pushdown"] == mode]
        days = [r["days"] for r in rs]
        ax_time.plot(days, [r["wallMs"] for r in rs], style, label=f"pushdown {mode}: wall")
        if "cpuMs" in rs[0]:
            ax_time.plot(days, [r["cpuMs"] for r in rs], style, alpha=0.4, label=f"pushdown {mode}: process CPU")
        ax_bytes.plot(days, [r["mbRead"] for r in rs], style, label=f"pushdown {mode}")
    ax_time.set(xlabel="history (days)", ylabel="ms (median)", title=f"{what}: time")
    ax_bytes.set(xlabel="history (days)", ylabel="MB read", title=f"{what}: bytes read")


def restart(doc, ax_time, ax_bytes):
    history(doc, ax_time, ax_bytes, what="restart of a streaming 7-day window")


def incumbents(doc, ax_files, ax_time):
    rs = rows(doc)
    shapes = list(dict.fromkeys(r["shape"] for r in rs))
    width = 0.8 / len(SYSTEMS)
    for i, system in enumerate(SYSTEMS):
        by_shape = {r["shape"]: r for r in rs if r["system"] == system}
        xs = [j + (i - 1) * width for j in range(len(shapes))]
        ax_files.bar(xs, [int(by_shape[s]["files"].split("/")[0]) for s in shapes], width, label=system)
        ax_time.bar(xs, [by_shape[s]["wallMs"] for s in shapes], width, label=system)
    for ax, label in ((ax_files, "files read"), (ax_time, "wall ms (median)")):
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels(shapes, rotation=35, ha="right", fontsize=8)
        ax.set_ylabel(label)
    ax_files.set_title(f"files read of {doc['params']['files']} (same files)")
    ax_time.set_yscale("log")
    ax_time.set_title("query time (log scale)")


def join(doc, ax_files, ax_time):
    rs = rows(doc)
    systems = [r["system"] for r in rs]
    ax_files.bar(systems, [int(r["files"].split("/")[0]) for r in rs])
    ax_files.axhline(doc["params"]["partsHoldingAMatch"], linestyle=":", color="gray",
                     label="parts holding a matching key")
    ax_files.set(ylabel="fact files read", title=f"fact files read of {doc['params']['parts']}")
    ax_files.legend()
    ax_time.bar([f"{s}\nwall" for s in systems], [r["wallMs"] for r in rs])
    ax_time.bar([f"{s}\nCPU" for s in systems], [r["cpuMs"] for r in rs], alpha=0.6)
    ax_time.set(ylabel="ms (median)", title="star join: wall and process CPU")


def aggregates(doc, ax_files, ax_time):
    rs = rows(doc)
    cases = [(r["parts"], r["query"]) for r in rs if r["system"] == "ours"]
    labels = [f"{parts}\n{query}" for parts, query in cases]
    systems = list(dict.fromkeys(r["system"] for r in rs))
    width = 0.8 / len(systems)
    for i, system in enumerate(systems):
        mine = {(r["parts"], r["query"]): r for r in rs if r["system"] == system}
        ks = [k for k, case in enumerate(cases) if case in mine]
        xs = [k + (i - (len(systems) - 1) / 2) * width for k in ks]
        ax_files.bar(xs, [mine[cases[k]]["filesRead"] for k in ks], width, label=f"{system}: files read")
        ax_time.bar(xs, [mine[cases[k]]["wallMs"] for k in ks], width, label=system)
    for ax in (ax_files, ax_time):
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, fontsize=7)
    ax_files.set(ylabel="files / parts read", title="files read (ours: parts read; the rest from statistics)")
    ax_files.set_yscale("symlog")
    ax_time.set(ylabel="ms (median)", title="wall time")
    ax_time.set_yscale("log")


def dml(doc, ax_time, ax_bytes):
    rs = rows(doc)
    steps = [r["step"] for r in rs if r["system"] == "ours"]
    width = 0.4
    for i, system in enumerate(["ours", "delta"]):
        mine = [r for r in rs if r["system"] == system]
        xs = [k + (i - 0.5) * width for k in range(len(mine))]
        ax_time.bar(xs, [r["wallMs"] for r in mine], width, label=system)
        ax_bytes.bar(xs, [max(r["bytesWritten"], 1) for r in mine], width, label=system)
    for ax in (ax_time, ax_bytes):
        ax.set_xticks(range(len(steps)))
        ax.set_xticklabels(steps, fontsize=7, rotation=20)
    ax_time.set(ylabel="ms", title="wall time per step")
    ax_time.set_yscale("log")
    ax_bytes.set(ylabel="bytes written", title="bytes the step wrote")
    ax_bytes.set_yscale("log")


def streaming_statements(doc, ax_ours, ax_delta):
    """Each engine's micro-batch durations over time, the statements' commits marked, their phase shaded."""
    batches, statements, failures = (doc["tables"][i]["rows"] for i in (2, 3, 4))
    for ax, engine in ((ax_ours, "ours"), (ax_delta, "delta")):
        mine = [b for b in batches if b["engine"] == engine and b["phase"] != "start-up"]
        top = max(b["durationMs"] for b in mine)
        ax.plot([b["t"] for b in mine], [b["durationMs"] for b in mine], ".-", lw=0.6, ms=3, label="micro-batch")
        ran = [s for s in statements if s["engine"] == engine]
        if ran:
            ax.axvspan(min(s["start"] for s in ran), max(s["end"] for s in ran), color="gold", alpha=0.15,
                       label="statements running")
        for kind, color in (("MERGE", "tab:green"), ("DELETE", "tab:purple")):
            ends = [(s["end"], s["error"] is None) for s in statements
                    if s["engine"] == engine and s["statement"] == kind]
            for i, t in enumerate(t for t, ok in ends if ok):
                ax.axvline(t, color=color, lw=0.8, alpha=0.6, label=f"{kind} committed" if i == 0 else None)
            failed = [t for t, ok in ends if not ok]
            if failed:
                ax.plot(failed, [top] * len(failed), "x", color=color, label=f"{kind} failed")
        restarts = [f["t"] for f in failures if f["engine"] == engine]
        if restarts:
            ax.plot(restarts, [top] * len(restarts), "v", color="red", label="stream failed (restarted)")
        ax.set_yscale("log")
        ax.set_ylim(top=top * 1.5)
        ax.set(xlabel="s since the stream's first micro-batch", ylabel="micro-batch ms (triggerExecution)",
               title=f"{engine}: stream alone, then with a MERGE and a DELETE every {doc['params']['intervalS']} s")


def planning(doc, ax_decide, ax_open):
    rs = rows(doc)
    parts = [r["parts"] for r in rs]
    ax_decide.loglog(parts, [r["decideMs"] for r in rs], "o-", label="decide ms (vectorized)")
    if all("interpretedDecideMs" in r for r in rs):
        ax_decide.loglog(parts, [r["interpretedDecideMs"] for r in rs], "s--", label="decide ms (interpreted)")
    ax_decide.loglog(parts, [p * doc["params"]["targetNanosPerPart"] / 1e6 for p in parts], ":",
                     label="target 1 µs/part")
    ax_decide.set(xlabel="parts", ylabel="ms", title="part decision time")
    ax_open.loglog(parts, [r["openMs"] for r in rs], "o-", label="open wall ms")
    ax_open.loglog(parts, [r["openCpuMs"] for r in rs], "s--", label="open CPU ms")
    ax_open.set(xlabel="parts", ylabel="ms", title="cold shard open")


def write(doc, ax_wall, ax_cpu):
    rs = rows(doc)
    scenarios = [r["scenario"] for r in rs]
    series = (("plain", "plainSeconds", "plainCpuSeconds"),
              ("plain + time/diff", "plainWithTimeDiffSeconds", "plainWithTimeDiffCpuSeconds"),
              ("shard (stats + commit)", "shardSeconds", "shardCpuSeconds"))
    width = 0.8 / len(series)
    for i, (label, wall, cpu) in enumerate(series):
        xs = [j + (i - 1) * width for j in range(len(rs))]
        ax_wall.bar(xs, [r[wall] for r in rs], width, label=label)
        ax_cpu.bar(xs, [r[cpu] for r in rs], width, label=label)
    for ax, label in ((ax_wall, "wall s (median)"), (ax_cpu, "process CPU s (median)")):
        ax.set_xticks(range(len(rs)))
        ax.set_xticklabels(scenarios, fontsize=7, rotation=12)
        ax.set_ylabel(label)
    ax_wall.set_title("write: wall")
    ax_cpu.set_title("write: CPU")


def compaction(doc, ax_time, ax_parts):
    rs = rows(doc)
    labels = [r["shard"] for r in rs]
    series = (("cold open", "openMs"), ("7-day window", "windowMs"), ("full scan", "fullMs"))
    width = 0.8 / len(series)
    for i, (label, key) in enumerate(series):
        xs = [j + (i - 1) * width for j in range(len(rs))]
        ax_time.bar(xs, [r[key] for r in rs], width, label=label)
    ax_time.set_yscale("log")
    ax_time.set_ylabel("ms (median, log scale)")
    ax_time.set_title("open and query time")
    xs = range(len(rs))
    ax_parts.bar([x - 0.2 for x in xs], [r["parts"] for r in rs], 0.4, label="parts in the shard")
    ax_parts.bar([x + 0.2 for x in xs], [int(r["windowParts"].split("/")[0]) for r in rs], 0.4,
                 label="parts the 7-day window reads")
    ax_parts.set_yscale("log")
    ax_parts.set_ylabel("parts (log scale)")
    ax_parts.set_title("parts")
    for ax in (ax_time, ax_parts):
        ax.set_xticks(range(len(rs)))
        ax.set_xticklabels(labels, fontsize=8)


def reads(doc, ax_time, ax_cpu, key="read"):
    """Bars of wall and process CPU time per read of a read-path benchmark."""
    rs = rows(doc)
    labels = [r[key] for r in rs]
    ax_time.bar(range(len(rs)), [r["wallMs"] for r in rs], label="wall ms (median)")
    ax_cpu.bar(range(len(rs)), [r["cpuMs"] for r in rs], color="tab:orange", label="process CPU ms (median)")
    ax_time.set_title("wall time")
    ax_cpu.set_title("CPU time (every task and thread)")
    for ax in (ax_time, ax_cpu):
        ax.set_xticks(range(len(rs)))
        ax.set_xticklabels(labels, fontsize=8)


def cluster(doc, ax_parts, ax_bytes):
    rs = [r for r in rows(doc) if r["ideal"] is not None]
    labels = [r["filter"] for r in rs]
    layouts = (("compacted", "compacted (one part a day)"), ("hilbert", "clustered, Hilbert"),
               ("grid", "clustered, grid"), ("gridIndexed", "grid + user_id index"),
               ("ideal", "ideal sort by the column"), ("delta", "Delta liquid (files)"))
    width = 0.8 / len(layouts)
    for i, (key, label) in enumerate(layouts):
        xs = [j + (i - len(layouts) / 2 + 0.5) * width for j in range(len(rs))]
        ax_parts.bar(xs, [max(r[key], 0.5) for r in rs], width, label=label)
    ax_parts.set_yscale("log")
    ax_parts.set(ylabel="parts (files) read, log scale", title="parts read per filter")
    sized = (("hilbertMB", "clustered, Hilbert"), ("gridMB", "clustered, grid"),
             ("gridIndexedMB", "grid + user_id index"), ("deltaMB", "Delta liquid"))
    width = 0.8 / len(sized)
    for i, (key, label) in enumerate(sized):
        xs = [j + (i - len(sized) / 2 + 0.5) * width for j in range(len(rs))]
        ax_bytes.bar(xs, [r[key] for r in rs], width, label=label)
    ax_bytes.set(ylabel="MB read", title="bytes read per filter")
    for ax in (ax_parts, ax_bytes):
        ax.set_xticks(list(range(len(rs))))
        ax.set_xticklabels(labels, fontsize=6, rotation=25, ha="right")


PLOTS = {"history": history, "incumbents": incumbents, "join": join, "aggregates": aggregates, "dml": dml, "planning": planning, "write": write,
         "compaction": compaction, "consolidated_read": reads, "restart": restart, "cluster": cluster,
         "streaming-statements": streaming_statements}


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "out"
    for name, draw in PLOTS.items():
        source = out / f"{name}.json"
        if not source.exists():
            print(f"skip {name}: no {source}")
            continue
        doc = json.loads(source.read_text())
        fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), constrained_layout=True)
        draw(doc, *axes)
        for ax in axes:
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
        fig.suptitle(doc["tables"][0]["title"], fontsize=8)
        target = out / f"{name}.png"
        fig.savefig(target, dpi=110)
        plt.close(fig)
        print(f"wrote {target}")


if __name__ == "__main__":
    main()
