#!/usr/bin/env python3
"""torch's figures for bench_pieces' shapes (benchmarks/bench_pieces.cu), by the same
method: float32 uniform in [0, 1), inputs rotating over copies that fill 512 MiB,
back-to-back calls between CUDA events, the median over 7 loops of the mean µs per call
(Python's per-call overhead included, as the anchors measure torch).

Rows: torch.sum(x, dim=-1), torch.argmax(x, dim=-1) and torch.topk(x, k, dim=-1) (k = 32, 50,
256; shapes of at most 2^26 items) on a (rows, length) tensor.
CSR (2^16 segments of random lengths, mean 512; and with one of them 2^24 items long):
torch.segment_reduce(x, "sum", lengths=...) and, for argmax, no single torch call
exists: not measured ("-").

usage: scripts/bench_pieces_torch.py [--md FILE]
Prints a Markdown table (and writes it to --md FILE when given).
"""
import argparse
import importlib.util
import sys
from pathlib import Path

SHAPES = [
    ("1x131072", 1, 131072, False),
    ("64x131072", 64, 131072, False),
    ("512x131072", 512, 131072, False),
    ("1024x65536", 1024, 65536, False),
    ("16x2^24", 16, 1 << 24, False),
    ("2^20x16", 1 << 20, 16, False),
    ("2^16x1024", 1 << 16, 1024, False),
    ("2^14x4096", 1 << 14, 4096, False),
    ("CSR 2^16 (mean 512)", 1 << 16, 512, True),
    ("CSR 2^16 + one 2^24", 1 << 16, 512, True),
    ("1x2^28", 1, 1 << 28, False),
]
LONG_ONE = {"CSR 2^16 + one 2^24": 1 << 24}  # the middle segment's length instead
BUDGET = 512 << 20
TOP_KS = (32, 50, 256)
HARNESS = None


def load_harness():
    """The one Python timing harness, python/src/tally/bench.py, loaded by its path (it
    needs neither the tally package nor its compiled module to time torch)."""
    path = Path(__file__).resolve().parents[1] / "python" / "src" / "tally" / "bench.py"
    spec = importlib.util.spec_from_file_location("tally_bench_harness", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def time_calls(torch, call, copies):
    """Median over 7 loops of the mean µs per call (tally.bench's method); call(k) runs on
    copy k % copies."""
    return HARNESS.time_interleaved(torch, {"torch": call})["torch"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--md", help="write the Markdown table here too")
    args = parser.parse_args()
    global HARNESS
    HARNESS = load_harness()
    torch = HARNESS.cuda_torch("bench_pieces_torch")
    if torch is None:
        return 2
    gen = torch.Generator(device="cuda").manual_seed(2026)
    sums, argmaxes = [], []
    topks = {k: [] for k in TOP_KS}
    for label, rows, length, csr in SHAPES:
        if csr:
            lengths = torch.randint(0, 2 * length + 1, (rows,), device="cuda", generator=gen)
            if label in LONG_ONE:
                lengths[rows // 2] = LONG_ONE[label]
            n = int(lengths.sum())
        else:
            n = rows * length
        copies = max(1, min(1024, BUDGET // (n * 4)))
        base = torch.rand(n, device="cuda", generator=gen)
        xs = [base.clone() for _ in range(copies)]
        del base
        if csr:
            # Checked once against a reference (a cumulative sum), never timed on zeros.
            got = torch.segment_reduce(xs[0], "sum", lengths=lengths)
            offsets = torch.cat([torch.zeros(1, device="cuda", dtype=torch.int64), lengths.cumsum(0)])
            csum = torch.cat([torch.zeros(1, device="cuda", dtype=torch.float64), xs[0].double().cumsum(0)])
            want = (csum[offsets[1:]] - csum[offsets[:-1]]).float()
            assert torch.allclose(got, want, rtol=1e-3, atol=1e-3), label
            sums.append(time_calls(torch, lambda k: torch.segment_reduce(xs[k % copies], "sum", lengths=lengths), copies))
            argmaxes.append(None)
            for k in TOP_KS:
                topks[k].append(None)
        else:
            views = [x.view(rows, length) for x in xs]
            assert float(views[0].sum()) > 0, label
            sums.append(time_calls(torch, lambda k: torch.sum(views[k % copies], dim=-1), copies))
            argmaxes.append(time_calls(torch, lambda k: torch.argmax(views[k % copies], dim=-1), copies))
            for top in TOP_KS:  # bench_pieces' top_k shapes: at most 2^26 items
                if n > 1 << 26 or top > length:
                    topks[top].append(None)
                    continue
                got = torch.topk(views[0], top, dim=-1, largest=True, sorted=True)
                assert float(got.values[0, 0]) == float(views[0][0].max()), label
                topks[top].append(time_calls(
                    torch, lambda k: torch.topk(views[k % copies], top, dim=-1, largest=True, sorted=True), copies))
            del views
        del xs
        torch.cuda.empty_cache()
    head = "| µs per call | " + " | ".join(s[0] for s in SHAPES) + " |"
    rule = "|---|" + "---:|" * len(SHAPES)
    fmt = lambda v: "-" if v is None else (f"{v:.2f}" if v < 10 else f"{v:.1f}")
    lines = [
        f"torch {torch.__version__} on {torch.cuda.get_device_name()}: float32 uniform in [0, 1), "
        "median over 7 loops of the mean µs per call, Python's call included",
        "",
        head,
        rule,
        "| torch.sum(dim=-1) (CSR: segment_reduce) | " + " | ".join(fmt(v) for v in sums) + " |",
        "| torch.argmax(dim=-1) | " + " | ".join(fmt(v) for v in argmaxes) + " |",
    ] + [
        f"| torch.topk(k={k}, dim=-1, sorted) | " + " | ".join(fmt(v) for v in topks[k]) + " |" for k in TOP_KS
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
