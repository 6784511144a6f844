"""Where a Python call of tally spends its host time: each part of tally.sum / tally.argmax /
tally.top_k (the array's view, the rows, the output's allocation, the stream, the C++ call
with its launch) timed alone, and the whole calls against torch's, on a GPU machine.

Host µs per call: `calls` back-to-back calls between two perf_counter reads, then a wait
for the GPU (the work is tiny: 1 x 1024 floats, so the host is the bound), the median of 7
rounds, the parts interleaved round by round. One process: only ratios within it compare
(host times move between machines and processes: docs/performance.md#python-host-path).

--select: the same for tally.select (int32, a mask of about half the items, 2^24, 2^25, 2^26
and 2^28 items in rotating copies), where the GPU is the bound: the whole call with the count
first and with the copy's count, the C++ call with each wait for the count (the stream's,
as before, and wait_count's poll), the C++ call alone back to back (the kernels' time),
the output's allocation and slice, and torch's masked_select and its count
(docs/performance.md#python-select-count-first). Its calls a loop are fixed by the size (400, 200, 100, 30):
--calls applies to the default parts only.

usage: python scripts/python_host_parts.py [--calls N] [--select]
"""

from __future__ import annotations

import argparse
import statistics
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=4000, help="calls a loop (not with --select)")
    parser.add_argument("--select", action="store_true", help="the parts of tally.select instead")
    args = parser.parse_args()
    if args.select:
        return select_parts()

    import torch

    import tally
    from tally import _ops, _tally
    from tally._arrays import view

    x = torch.rand(1, 1024, device="cuda")
    v = view(x, "x")
    adapter = v.adapter
    out = torch.empty_strided((1,), (1,), dtype=torch.float32, device=x.device)
    idx = torch.empty_strided((1,), (1,), dtype=torch.int64, device=x.device)
    tv = torch.empty_strided((1, 50), (50, 1), dtype=torch.float32, device=x.device)
    ti = torch.empty_strided((1, 50), (50, 1), dtype=torch.int64, device=x.device)
    stream = adapter.stream(v)
    device = torch.device("cuda", v.device)

    parts = {
        "torch.sum(x, -1)": lambda: torch.sum(x, -1),
        "torch.argmax(x, -1)": lambda: torch.argmax(x, -1),
        "torch.topk(x, 50)": lambda: torch.topk(x, 50),
        "tally.sum(x, -1)": lambda: tally.sum(x, -1),
        "tally.argmax(x, -1)": lambda: tally.argmax(x, -1),
        "tally.top_k(x, 50)": lambda: tally.top_k(x, 50),
        "view(x)": lambda: view(x, "x"),
        "_rows(v, -1)": lambda: _ops._rows(v, -1, "sum"),
        "adapter.empty(v, (1,), float32)": lambda: adapter.empty(v, (1,), "float32"),
        "torch.empty_strided": lambda: torch.empty_strided((1,), (1,), dtype=torch.float32, device=device),
        "adapter.stream(v)": lambda: adapter.stream(v),
        "out.data_ptr()": lambda: out.data_ptr(),
        "_tally.sum_dtype (a call, no CUDA)": lambda: _tally.sum_dtype("float32"),
        "_tally.sum_rows (C++: tally::reduce_into)": lambda: _tally.sum_rows(
            "float32", v.ptr, 1, 1024, 1024, out.data_ptr(), v.device, stream),
        "_tally.argmax_rows (C++)": lambda: _tally.argmax_rows(
            "float32", v.ptr, 1, 1024, 1024, idx.data_ptr(), v.device, stream),
        "_tally.top_k_rows (C++)": lambda: _tally.top_k_rows(
            "float32", v.ptr, 1, 1024, 1024, 50, True, tv.data_ptr(), ti.data_ptr(), v.device, stream),
        "_tally.top_k_flat (C++)": lambda: _tally.top_k_flat(
            "float32", v.ptr, 1024, 50, True, tv.data_ptr(), ti.data_ptr(), v.device, stream),
    }
    for f in parts.values():  # warm up (first calls load kernels, fill caches)
        for _ in range(50):
            f()
    torch.cuda.synchronize()
    rounds = {name: [] for name in parts}
    for _ in range(7):
        for name, f in parts.items():
            start = time.perf_counter()
            for _ in range(args.calls):
                f()
            torch.cuda.synchronize()
            rounds[name].append((time.perf_counter() - start) * 1e6 / args.calls)
    print(f"host µs per call, median of 7 rounds of {args.calls} calls, torch {torch.__version__}, "
          f"{torch.cuda.get_device_name()}")
    print("| part | µs |\n|---|---:|")
    for name, r in rounds.items():
        print(f"| {name} | {statistics.median(r):.2f} |")


def select_parts():
    import torch

    import tally
    from tally import _ops, _tally

    def per_call(f, calls):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for j in range(calls):
            f(j)
        torch.cuda.synchronize()
        return (time.perf_counter() - start) * 1e6 / calls

    def count_first(flag, f):
        """f with select's count first (flag) or from the copy, whatever the size."""
        def call(j):
            _ops.COUNT_FIRST_MAX = 1 << 62 if flag else -1
            return f(j)
        return call

    print(f"µs per call, median of 5 rounds, torch {torch.__version__}, {torch.cuda.get_device_name()}")
    print("| part | 2^24 | 2^25 | 2^26 | 2^28 |\n|---|---:|---:|---:|---:|")
    table = {}
    default = _ops.COUNT_FIRST_MAX
    for log2 in (24, 25, 26, 28):
        n = 1 << log2
        c = max(1, (512 << 20) // (n * 5))  # the rotating copies of tally.bench's select
        gen = torch.Generator(device="cuda").manual_seed(2026)
        xs = [torch.randint(-(1 << 30), 1 << 30, (n,), device="cuda", generator=gen, dtype=torch.int32)
              for _ in range(c)]
        masks = [x > 0 for x in xs]
        out = torch.empty(n, dtype=torch.int32, device="cuda")
        device = xs[0].device.index
        stream = torch.cuda.current_stream().cuda_stream

        def launch(j, first=False):
            _tally.select(4, xs[j % c].data_ptr(), masks[j % c].data_ptr(), n, out.data_ptr(), True, first, device,
                          stream)

        whole = lambda j: tally.select(xs[j % c], masks[j % c])
        parts = {
            "tally.select, the copy's count": count_first(False, whole),
            "tally.select, the count first": count_first(True, whole),
            "tally.select unordered, the copy's count": count_first(
                False, lambda j: tally.select(xs[j % c], masks[j % c], ordered=False)),
            "tally.select unordered, the count first": count_first(
                True, lambda j: tally.select(xs[j % c], masks[j % c], ordered=False)),
            "_tally.select + a stream wait (before)": lambda j: (
                launch(j), _tally.synchronize(device, stream), _tally.wait_count(device, stream)),
            "_tally.select + wait_count (the copy's count)": lambda j: (launch(j), _tally.wait_count(device, stream)),
            "_tally.select + wait_count (the count first)": lambda j: (
                launch(j, True), _tally.wait_count(device, stream)),
            "_tally.select back to back (the kernel)": launch,
            "_tally.select back to back, the count first (both kernels)": lambda j: launch(j, True),
            "torch.empty(n)": lambda j: torch.empty(n, dtype=torch.int32, device="cuda"),
            "out[:n // 2]": lambda j: out[: n // 2],
            "out.narrow(0, 0, n // 2)": lambda j: out.narrow(0, 0, n // 2),
            "torch.masked_select": lambda j: torch.masked_select(xs[j % c], masks[j % c]),
            "int(torch.count_nonzero(mask))": lambda j: int(torch.count_nonzero(masks[j % c])),
        }
        calls = {24: 400, 25: 200, 26: 100, 28: 30}[log2]
        rounds = {name: [] for name in parts}
        for _ in range(5):
            for name, f in parts.items():
                rounds[name].append(per_call(f, calls))
        _ops.COUNT_FIRST_MAX = default
        for name, r in rounds.items():
            table.setdefault(name, []).append(statistics.median(r))
        del xs, masks, out
        torch.cuda.empty_cache()
    for name, row in table.items():
        print(f"| {name} | " + " | ".join(f"{v:.1f}" for v in row) + " |")


if __name__ == "__main__":
    main()
