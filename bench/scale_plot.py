"""Growth plot and table from bench.scale reports: latency per query shape against size.

    python -m bench.scale_plot bench/results/scale-10k.json bench/results/scale-100k.json \\
        bench/results/scale-1m.json --png bench/results/scale-growth.png [--markdown]

Left: P50 and P95 per shape against the number of nodes, both axes logarithmic, with
the issue's P95 goals as dotted lines. Right: load throughput and peak memory. With
--markdown the summary table is printed as Markdown (the README's Performance table).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

SHAPES = (("seed_1hop", "seed 1-hop"), ("bm25", "BM25 (FTS5)"), ("hnsw", "HNSW top-10"),
          ("recall", "hybrid recall"))


def load_reports(paths: list[str]) -> list[dict]:
    reports = [json.loads(Path(p).read_text()) for p in paths]
    return sorted(reports, key=lambda r: r["nodes"])


def plot(reports: list[dict], png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bench.scale import GOALS

    sizes = [r["nodes"] for r in reports]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8), gridspec_kw={"width_ratios": [3, 2]})
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for colour, (key, label) in zip(colours, SHAPES):
        p95 = [r["latency_ms"][key]["p95"] for r in reports]
        p50 = [r["latency_ms"][key]["p50"] for r in reports]
        left.plot(sizes, p95, "o-", color=colour, label=f"{label} P95")
        left.plot(sizes, p50, "o--", color=colour, alpha=0.5, label=f"{label} P50")
        left.axhline(GOALS[key], color=colour, linestyle=":", linewidth=1)
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("nodes (edges = 2.5 x nodes)")
    left.set_ylabel("latency, ms (dotted: P95 goal)")
    left.set_title("Latency per query shape")
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=7, ncol=2)

    writes = [r["load"]["writes_per_s"] for r in reports]
    cpu = [r["load"].get("writes_per_cpu_s") for r in reports]
    right.plot(sizes, writes, "o-", label="writes/s (wall)")
    if all(cpu):
        right.plot(sizes, cpu, "o--", label="writes per CPU-second")
    right.axhline(GOALS["writes_per_s"], color="grey", linestyle=":", linewidth=1)
    right.set_xscale("log")
    right.set_xlabel("nodes")
    right.set_ylabel("nodes written per second")
    right.set_title("Bulk load (one transaction)")
    right.grid(True, which="both", alpha=0.3)
    mem = right.twinx()
    mem.plot(sizes, [r["peak_rss_gib"] for r in reports], "s-", color="tab:red", label="peak RSS")
    mem.set_ylabel("peak RSS, GiB", color="tab:red")
    lines = right.get_legend_handles_labels()
    extra = mem.get_legend_handles_labels()
    right.legend(lines[0] + extra[0], lines[1] + extra[1], fontsize=7, loc="lower left")
    machine = reports[-1]["machine"]
    fig.suptitle(f"WorldDB at scale - {machine['cpu']}, {machine['cores']} cores, {machine['ram_gib']} GiB",
                 fontsize=9)
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=120)


def markdown(reports: list[dict]) -> str:
    def size(n: int) -> str:
        return f"{n // 1_000_000}M" if n % 1_000_000 == 0 else f"{n // 1000}k"

    head = "| | " + " | ".join(size(r["nodes"]) for r in reports) + " | goal |"
    rows = [head, "|---" * (len(reports) + 2) + "|"]

    def row(label: str, values: list, goal: str) -> None:
        rows.append(f"| {label} | " + " | ".join(values) + f" | {goal} |")

    row("writes/s (wall)", [f"{r['load']['writes_per_s']:,.0f}" for r in reports], ">= 10,000")
    row("writes per CPU-second", [f"{r['load'].get('writes_per_cpu_s', 0):,.0f}" for r in reports], "")
    row("node+edge writes/s (wall)", [f"{r['load'].get('node_and_edge_writes_per_s', 0):,.0f}" for r in reports], "")
    row("HNSW build, s", [f"{r['index_build']['seconds']:,.1f}" for r in reports], "")
    row("HNSW open from snapshots in a fresh process, s",
        [f"{r['index_reopen']['seconds']:,.2f}" if "index_reopen" in r else "-" for r in reports], "")
    row("database, GiB", [f"{r['db_gib']:.2f}" for r in reports], "")
    row("peak RSS, GiB", [f"{r['peak_rss_gib']:.2f}" for r in reports], "< 8")
    from bench.scale import GOALS

    for key, label in SHAPES:
        row(f"{label} P50 / P95 / P99, ms",
            [" / ".join(f"{r['latency_ms'][key][p]:.2f}" for p in ("p50", "p95", "p99")) for r in reports],
            f"P95 <= {GOALS[key]:g}")
    for key, label in SHAPES:  # CPU time of the process: what wall time is on an idle machine
        row(f"{label} P95 CPU-time, ms", [f"{r['cpu_ms'][key]['p95']:.2f}" for r in reports], "")
    for key, label in SHAPES:  # the warm-up probes, before the file was read into the OS cache
        row(f"{label} first probes P50 / P95, ms",
            [" / ".join(f"{r['cold_start_latency_ms'][key][p]:.2f}" for p in ("p50", "p95"))
             if r.get("cold_start_latency_ms") else "-" for r in reports], "")
    row("database file read into the OS cache before the measured probes, s",
        [f"{r['file_read_into_os_cache_before_probes']['seconds']:.1f}"
         if r.get("file_read_into_os_cache_before_probes") else "no" for r in reports], "")
    quality = [r.get("quality", {}) for r in reports]
    row("HNSW recall@10 against an exact scan", [f"{q.get('hnsw_recall_at_10_vs_exact', '-')}" for q in quality], "")
    row("probe's own memory in top 10: exact scan / HNSW / BM25 / recall",
        [" / ".join(f"{q.get(k, '-')}" for k in ("exact_cosine_hit10", "hnsw_hit10", "bm25_hit10", "recall_hit10"))
         for q in quality], "")
    row("verify", [("ok" if r.get("verify", {}).get("ok") else "-") for r in reports], "")
    row("load average (1 min) before load / probes",
        [f"{(r.get('loadavg_before_load') or r['load'].get('loadavg_during') or ['-'])[0]} / "
         f"{r.get('loadavg_before_probes', ['-'])[0]}" for r in reports], "")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--png", default="bench/results/scale-growth.png")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    reports = load_reports(args.reports)
    plot(reports, Path(args.png))
    if args.markdown:
        print(markdown(reports))
    print(f"plot: {args.png}")


if __name__ == "__main__":
    main()
