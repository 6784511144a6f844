#!/usr/bin/env python3
"""Charts of a `tally bench --json FILE` run (what `tally plot FILE -o DIR` runs).

For each (algorithm, type) two PNG files in DIR: <algorithm>_<type>_time.png (µs per call
against n) and <algorithm>_<type>_gbps.png (GB/s against n), log scales, one line per
implementation; the floor row (one read of the input) dashed, the measured copy
bandwidth as a horizontal line on the GB/s chart. Rows that were wrong are left out.

usage: plot_bench.py FILE.json -o DIR
Exit codes: 0, 1 (matplotlib missing or a bad file), 2 (bad command line).
"""
import argparse
import json
import os
import re
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help="the JSON file of `tally bench --json`")
    parser.add_argument("-o", "--out", required=True, help="directory for the PNG files")
    args = parser.parse_args()
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_bench.py: matplotlib is not installed (pip install matplotlib)", file=sys.stderr)
        return 1
    try:
        with open(args.input) as f:
            run = json.load(f)
        results = run["results"]
    except (OSError, ValueError, KeyError) as e:
        print(f"plot_bench.py: cannot read {args.input}: {e}", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)

    groups = {}
    for r in results:
        if r.get("ok"):
            groups.setdefault((r["algorithm"], r["type"]), {}).setdefault(r["impl"], []).append(r)
    title_tail = f'{run.get("device_name", "")}, {run.get("date", "")}, commit {run.get("commit", "?")}'
    written = 0
    for (algorithm, type_), impls in groups.items():
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{algorithm}_{type_}").strip("_")
        for metric, ylabel, suffix in (("us", "µs per call", "time"), ("gbps", "GB/s", "gbps")):
            fig, ax = plt.subplots(figsize=(8, 5))
            for impl, rows in impls.items():
                rows = sorted(rows, key=lambda r: r["n"])
                floor = impl.startswith("floor")
                ax.plot([r["n"] for r in rows], [r[metric] for r in rows], marker="o", markersize=3,
                        linestyle="--" if floor else "-", color="black" if floor else None,
                        linewidth=2.2 if impl == "tally automatic" else 1.2, label=impl)
            if metric == "gbps" and run.get("copy_gbps"):
                ax.axhline(run["copy_gbps"], color="grey", linestyle=":",
                           label=f'copy bandwidth ({run["copy_gbps"]:.0f} GB/s)')
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("n (items)")
            ax.set_ylabel(ylabel)
            ax.set_title(f"{algorithm} {type_}: {ylabel}\n{title_tail}", fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
            fig.tight_layout()
            fig.savefig(os.path.join(args.out, f"{stem}_{suffix}.png"), dpi=110)
            plt.close(fig)
            written += 1
    print(f"plot_bench.py: wrote {written} charts to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
