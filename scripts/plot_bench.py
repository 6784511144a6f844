#!/usr/bin/env python3
"""Charts of a `tally bench --json FILE` run (what `tally plot FILE -o DIR` runs).

The input is JSON Lines, one object per measured row, as the benchmark executables write
them with --json=FILE (support/tally_support/bench_report.hpp: program, device, date,
commit, copy_gbps, case, row, n, ok, us, gbps, ...); `tally bench --json` concatenates
theirs. For each (program, case) two PNG files in DIR: <program>_<case>_time.png (µs
per call against n) and <program>_<case>_gbps.png (GB/s against n), log scales, one line
per row; the floor row (stream_read, one read of the input) dashed, the measured copy
bandwidth as a horizontal line on the GB/s chart. Rows that were WRONG are left out.

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
    parser.add_argument("input", help="the JSON Lines file of `tally bench --json` (or of a bench_* --json=FILE)")
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
            results = [json.loads(line) for line in f if line.strip()]
        for r in results:
            r["program"], r["case"], r["row"], r["n"], r["ok"]  # every row has these
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"plot_bench.py: cannot read {args.input}: {e}", file=sys.stderr)
        return 1
    if not results:
        print(f"plot_bench.py: {args.input} has no rows", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)

    groups = {}
    for r in results:
        if r["ok"]:
            groups.setdefault((r["program"], r["case"]), {}).setdefault(r["row"], []).append(r)
    first = results[0]
    title_tail = f'{first.get("device", "")}, {first.get("date", "")}, commit {first.get("commit", "?")}'
    written = 0
    for (program, case), impls in groups.items():
        copy_gbps = next(iter(impls.values()))[0].get("copy_gbps")
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{program}_{case}").strip("_")
        for metric, ylabel, suffix in (("us", "µs per call", "time"), ("gbps", "GB/s", "gbps")):
            fig, ax = plt.subplots(figsize=(8, 5))
            for impl, rows in impls.items():
                rows = sorted(rows, key=lambda r: r["n"])
                floor = impl.startswith("stream_read")
                ax.plot([r["n"] for r in rows], [r[metric] for r in rows], marker="o", markersize=3,
                        linestyle="--" if floor else "-", color="black" if floor else None,
                        linewidth=2.2 if impl == "tally automatic" else 1.2, label=impl)
            if metric == "gbps" and copy_gbps:
                ax.axhline(copy_gbps, color="grey", linestyle=":", label=f"copy bandwidth ({copy_gbps:.0f} GB/s)")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("n (items)")
            ax.set_ylabel(ylabel)
            ax.set_title(f"{program} {case}: {ylabel}\n{title_tail}", fontsize=9)
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
