"""tally against torch (and CuPy) from Python, in one run: ``python -m tally.bench``.

The method is the anchors' (../shared/anchors/README.md): float32 uniform in [0, 1) (int32
for select), inputs rotating over copies that fill 512 MiB, back-to-back calls between CUDA
events (so Python's per-call overhead counts whenever it is longer than the GPU's work,
as it does for torch), the implementations of a case interleaved: 7 rounds, each one loop
of each (at least 20 calls and 2 ms), the median loop's mean µs per call. Every result is
checked against torch's before it is timed.

usage: python -m tally.bench [--only SUBSTRING] [--md FILE]
"""

from __future__ import annotations

import argparse
import statistics
import sys

BUDGET = 512 << 20
ROUNDS = 7

ROW_SHAPES = [(1, 1024), (1, 131072), (64, 131072), (512, 131072), (1024, 65536), (16, 1 << 24)]
TOP_K_ROWS = [(1, 131072, 50), (64, 131072, 50), (512, 131072, 50), (512, 131072, 256), (1024, 65536, 32)]
TOP_K_FLAT = [(1 << 20, 32), (1 << 24, 32), (1 << 28, 8), (1 << 28, 32), (1 << 28, 1024)]
SELECT_SIZES = [1 << 24, 1 << 26, 1 << 28]


def calibrate(torch, call, min_calls=20, min_ms=2.0):
    """Calls per loop: at least min_calls, about min_ms long (after 3 warm-up calls)."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for k in range(3):
        call(k)
    torch.cuda.synchronize()
    calls = min_calls
    while True:
        start.record()
        for k in range(calls):
            call(k)
        stop.record()
        stop.synchronize()
        if start.elapsed_time(stop) >= min_ms or calls >= 1 << 16:
            return calls
        calls *= 2


def time_interleaved(torch, calls):
    """{name: median µs per call}: calls is {name: call(k)}; one loop of each per round."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    counts = {name: calibrate(torch, call) for name, call in calls.items()}
    means = {name: [] for name in calls}
    for _ in range(ROUNDS):
        for name, call in calls.items():
            n = counts[name]
            start.record()
            for k in range(n):
                call(k)
            stop.record()
            stop.synchronize()
            means[name].append(start.elapsed_time(stop) * 1e3 / n)
    return {name: statistics.median(m) for name, m in means.items()}


def copies_of(torch, make, nbytes):
    """Copies of one input that fill BUDGET (at least one), made by make()."""
    first = make()
    return [first] + [first.clone() for _ in range(max(1, BUDGET // nbytes) - 1)]


def cases(torch, cupy, tally, gen):
    """(label, setup) for every case; setup() makes the inputs, checks tally's result against
    torch's and returns {name: call(k)}."""
    f32 = lambda n: torch.rand(n, device="cuda", generator=gen)

    def rows_case(rows, length, which):
        xs = copies_of(torch, lambda: f32(rows * length).view(rows, length), rows * length * 4)
        c = len(xs)
        if which == "argmax":
            assert torch.equal(tally.argmax(xs[0], dim=-1), torch.argmax(xs[0], dim=-1))
        else:
            torch.testing.assert_close(tally.sum(xs[0], dim=-1), torch.sum(xs[0], dim=-1), rtol=1e-4, atol=1e-2)
        ours, theirs = getattr(tally, which), getattr(torch, which)
        impls = {"tally": lambda k: ours(xs[k % c], dim=-1), "torch": lambda k: theirs(xs[k % c], dim=-1)}
        if cupy is not None:
            cxs, cupys = [cupy.asarray(x) for x in xs], getattr(cupy, which)
            impls["cupy"] = lambda k: cupys(cxs[k % c], axis=-1)
        return impls

    def top_k_case(shape, k):
        n = 1
        for s in shape:
            n *= s
        xs = copies_of(torch, lambda: f32(n).view(shape), n * 4)
        c = len(xs)
        assert torch.equal(tally.top_k(xs[0], k)[0], torch.topk(xs[0], k, dim=-1).values)
        return {"tally": lambda j: tally.top_k(xs[j % c], k), "torch": lambda j: torch.topk(xs[j % c], k, dim=-1)}

    def select_case(n):
        xs = copies_of(torch, lambda: torch.randint(-(1 << 30), 1 << 30, (n,), device="cuda", generator=gen,
                                                    dtype=torch.int32), n * 5)
        masks = [x > 0 for x in xs]  # about half of the items
        c = len(xs)
        assert torch.equal(tally.select(xs[0], masks[0]), torch.masked_select(xs[0], masks[0]))
        impls = {
            "tally": lambda j: tally.select(xs[j % c], masks[j % c]),
            "tally unordered": lambda j: tally.select(xs[j % c], masks[j % c], ordered=False),
            "torch": lambda j: torch.masked_select(xs[j % c], masks[j % c]),
        }
        if cupy is not None:
            cxs, cms = [cupy.asarray(x) for x in xs], [cupy.asarray(m) for m in masks]
            impls["cupy"] = lambda j: cxs[j % c][cms[j % c]]
        return impls

    for rows, length, k in TOP_K_ROWS:
        yield f"top_k {rows}x{length} k={k}", lambda r=rows, l=length, k=k: top_k_case((r, l), k)
    for n, k in TOP_K_FLAT:
        yield f"top_k flat 2^{n.bit_length() - 1} k={k}", lambda n=n, k=k: top_k_case((n,), k)
    for rows, length in ROW_SHAPES:
        for which in ("argmax", "sum"):
            yield f"{which} {rows}x{length}", lambda r=rows, l=length, w=which: rows_case(r, l, w)
    for n in SELECT_SIZES:
        yield f"select int32 50% 2^{n.bit_length() - 1}", lambda n=n: select_case(n)


def cuda_torch(who):
    """torch, when it is installed and sees a CUDA device; else None, after saying why."""
    try:
        import torch
    except ImportError:
        print(f"{who}: needs torch", file=sys.stderr)
        return None
    if not torch.cuda.is_available():
        print(f"{who}: no CUDA device", file=sys.stderr)
        return None
    return torch


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="run only the cases whose label contains this")
    parser.add_argument("--md", help="write the Markdown table here too")
    args = parser.parse_args(argv)
    torch = cuda_torch("tally.bench")
    if torch is None:
        return 2
    try:
        import cupy
    except ImportError:
        cupy = None
    import tally

    gen = torch.Generator(device="cuda").manual_seed(2026)
    lines = [
        f"tally {tally.__version__}, torch {torch.__version__}"
        + (f", CuPy {cupy.__version__}" if cupy is not None else "")
        + f" on {torch.cuda.get_device_name()}: median of {ROUNDS} interleaved loops, µs per call "
        "(Python's call included)",
        "",
        "| case | tally | tally unordered | torch | cupy | torch / tally |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    fmt = lambda v: "-" if v is None else (f"{v:.2f}" if v < 10 else f"{v:.1f}")
    print("\n".join(lines), flush=True)
    for label, setup in cases(torch, cupy, tally, gen):
        if args.only not in label:
            continue
        impls = setup()
        t = time_interleaved(torch, impls)
        del impls
        row = (f"| {label} | {fmt(t['tally'])} | {fmt(t.get('tally unordered'))} | {fmt(t['torch'])} | "
               f"{fmt(t.get('cupy'))} | {t['torch'] / t['tally']:.2f}x |")
        lines.append(row)
        print(row, flush=True)
        torch.cuda.empty_cache()
    if args.md:
        with open(args.md, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
