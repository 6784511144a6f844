"""tally's functions on PyTorch CUDA tensors, against references computed on the host with
PyTorch: a stable sort for top_k (ties by the lower index), first-index rules for argmax and
argmin, float64 sums with an error bound, masked_select. NaN is greater than every number and
-0.0 equals +0.0 throughout."""

import math

import pytest

torch = pytest.importorskip("torch")

import tally  # noqa: E402

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="torch sees no CUDA GPU"),
]

FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
INTS = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)
ALL = FLOATS + INTS
DATA = ("random", "equal", "ascending", "descending", "three", "nan", "inf", "zeros")


# --- data ----------------------------------------------------------------------------------


def make(shape, dtype=torch.float32, data="random", seed=0, device="cuda"):
    """Seeded data of `shape` on the GPU, made on the host (the same on every machine).

    random: normal floats, integers over the dtype's range (int64: +-2^50); equal: one value;
    ascending/descending: sorted random data (along the flattened array, so along every row);
    three: three distinct values; positive: uniform in [0, 0.5); nan: random with NaNs and
    +-inf; inf: random with +-inf (integers: the dtype's extremes); zeros: -0.0, +0.0, +-1.
    """
    g = torch.Generator().manual_seed(seed)
    n = math.prod(shape)
    u = torch.rand(n, generator=g, dtype=torch.float64)
    if dtype == torch.bool:
        x = u < {"random": 0.5, "equal": 2.0, "three": 0.05}.get(data, 0.5)
        return x.reshape(shape).to(device)
    floating = dtype.is_floating_point
    if floating:
        base = torch.randn(n, generator=g, dtype=torch.float64)
    else:
        lo, hi = (-(2**50), 2**50) if dtype == torch.int64 else (torch.iinfo(dtype).min, torch.iinfo(dtype).max + 1)
        base = torch.randint(lo, hi, (n,), generator=g, dtype=torch.int64)
    if data == "random":
        x = base
    elif data == "equal":
        x = torch.full((n,), 7, dtype=base.dtype)
    elif data in ("ascending", "descending"):
        x = torch.sort(base).values  # the cast to dtype keeps the order
        x = x if data == "ascending" else x.flip(0)
    elif data == "three":
        x = torch.tensor([1, 5, 9], dtype=base.dtype)[(u * 3).long()]
    elif data == "positive":
        x = u * 0.5
    elif data == "nan":
        assert floating
        x = base.clone()
        x[u < 0.1] = float("nan")
        x[(u >= 0.1) & (u < 0.13)] = float("inf")
        x[(u >= 0.13) & (u < 0.16)] = -float("inf")
    elif data == "inf":
        x = base.clone()
        top, bottom = (math.inf, -math.inf) if floating else (torch.iinfo(dtype).max, torch.iinfo(dtype).min)
        x[u < 0.1] = top
        x[(u >= 0.1) & (u < 0.2)] = bottom
    elif data == "zeros":
        if not floating:
            return make(shape, dtype, "three", seed, device)
        x = torch.tensor([-0.0, 0.0, 1.0, -1.0], dtype=torch.float64)[(u * 4).long()]
    else:
        raise ValueError(data)
    return x.to(dtype).reshape(shape).to(device)


# --- references (on the host) ----------------------------------------------------------------


def _key(xc):
    """Host values that order like the library: float64 for floats (exact; -0.0 made +0.0),
    uint8 for bool, integers as they are."""
    if xc.dtype == torch.bool:
        return xc.to(torch.uint8)
    if xc.dtype.is_floating_point:
        return xc.double() + 0.0
    return xc


def ref_top_k(x, k, dim=-1, largest=True):
    """The first k of a stable sort (NaN greatest, ties by the lower index)."""
    xc = x.cpu()
    order = torch.sort(_key(xc), dim=dim, descending=largest, stable=True).indices.narrow(dim, 0, k)
    return xc.gather(dim, order), order


def _flat(xc, dim):
    return (xc.reshape(-1), 0) if dim is None else (xc, dim)


def ref_max(xc, dim, keepdim=False):
    key, d = _flat(_key(xc), dim)
    return key.amax(d, keepdim=keepdim)  # amax propagates NaN


def ref_min(xc, dim, keepdim=False):
    key, d = _flat(_key(xc), dim)
    if not key.dtype.is_floating_point:
        return key.amin(d, keepdim=keepdim)
    nan = key.isnan()
    m = key.masked_fill(nan, math.inf).amin(d, keepdim=keepdim)
    return m.masked_fill(nan.all(d, keepdim=keepdim), math.nan)


def _first(hit, d):
    return hit.to(torch.uint8).argmax(d)  # argmax returns the first of equal maxima


def ref_argmax(xc, dim):
    key, d = _flat(_key(xc), dim)
    m = ref_max(key, d, keepdim=True)
    hit = key == m
    if key.dtype.is_floating_point:
        hit |= key.isnan() & m.isnan()
    return _first(hit, d)


def ref_argmin(xc, dim):
    key, d = _flat(_key(xc), dim)
    m = ref_min(key, d, keepdim=True)
    hit = key == m
    if key.dtype.is_floating_point:
        hit |= key.isnan() & m.isnan()
    return _first(hit, d)


REFERENCES = {"max": ref_max, "min": ref_min, "argmax": ref_argmax, "argmin": ref_argmin}


def assert_same(got, want):
    """Equal values (NaN equal to NaN, -0.0 to +0.0), dtype and shape."""
    torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)


def assert_tensor(out, x, dtype, shape):
    assert isinstance(out, torch.Tensor)
    assert out.device == x.device, (out.device, x.device)
    assert out.dtype == dtype, (out.dtype, dtype)
    assert tuple(out.shape) == tuple(shape), (tuple(out.shape), tuple(shape))


def check_top_k(x, k, dim=-1, largest=True):
    """tally.top_k against the stable sort: indices exactly, values equal."""
    values, indices = tally.top_k(x, k, dim=dim, largest=largest)
    want_values, want_indices = ref_top_k(x, k, dim, largest)
    assert_tensor(values, x, x.dtype, want_values.shape)
    assert_tensor(indices, x, torch.int64, want_indices.shape)
    assert torch.equal(indices.cpu(), want_indices), "indices differ from the stable sort's"
    assert_same(values.cpu(), want_values)


def check_reduce(fn, x, dim):
    """tally.<fn> (max, min, argmax, argmin) against its host reference."""
    got = getattr(tally, fn)(x, dim)
    want = REFERENCES[fn](x.cpu(), dim)
    if fn in ("max", "min"):
        want = want.to(x.dtype)
    assert_tensor(got, x, want.dtype, want.shape)
    assert_same(got.cpu(), want)


def check_sum(x, dim):
    """tally.sum: integers exact in int64; floats within an error bound scaled by the sum of
    |x| and sqrt(n), the result in x's dtype."""
    got = tally.sum(x, dim)
    xc = x.cpu()
    if not x.dtype.is_floating_point:
        want = xc.sum(dim, dtype=torch.int64) if dim is not None else xc.sum(dtype=torch.int64)
        assert_tensor(got, x, torch.int64, want.shape)
        assert torch.equal(got.cpu(), want)
        return
    x64 = xc.double()
    want = x64.sum(dim) if dim is not None else x64.sum()
    scale = x64.abs().sum(dim) if dim is not None else x64.abs().sum()
    n = x.numel() if dim is None else x.shape[dim]
    accumulate = torch.float64 if x.dtype == torch.float64 else torch.float32  # 16-bit floats add in float32
    tol = torch.finfo(accumulate).eps * scale * (2 * math.sqrt(n) + 8) + torch.finfo(x.dtype).eps * want.abs()
    assert_tensor(got, x, x.dtype, want.shape)
    error = (got.cpu().double() - want).abs()
    assert bool((error <= tol).all()), f"largest error {error.max().item()} over tolerance"


# --- top_k ---------------------------------------------------------------------------------


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("k", [1, 2, 31, 32, 33, 100, 1024, 2048])
def test_top_k_k(k, largest):
    """Every k around the warp size and up to the one-launch limit, over rows of 4097."""
    check_top_k(make((8, 4097), seed=k), k, largest=largest)


@pytest.mark.parametrize(
    "rows, length, k",
    [(1, 1, 1), (4096, 1, 1), (1, 31, 7), (4096, 31, 31), (1, 33, 32), (4096, 33, 1), (4096, 33, 33),
     (1, 4097, 100), (64, 4097, 2048), (1, 131072, 64), (4, 131072, 1024), (16, 2048, 2048), (3, 100, 100)],
)
def test_top_k_shapes(rows, length, k):
    """Short and long rows, one row and many, k = the row's length."""
    x = make((rows, length), seed=rows + length)
    check_top_k(x, k)
    check_top_k(x, k, largest=False)


@pytest.mark.parametrize("n, k", [(1, 1), (100, 100), (4097, 2048), (4097, 4097), (2**16, 3000), (2**20, 50)])
def test_top_k_flat(n, k):
    """1-D inputs take any k, beyond 2048 too."""
    x = make((n,), seed=n)
    check_top_k(x, k)
    check_top_k(x, k, largest=False)


@pytest.mark.parametrize("k", [2049, 3000, 5000])
def test_top_k_rows_beyond_one_launch(k):
    """2-D rows with k > 2048 (a call per row) and an int dtype with ties."""
    check_top_k(make((3, 5000), seed=k), k)
    check_top_k(make((3, 5000), torch.int8, seed=k), k, largest=False)


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("data", DATA)
def test_top_k_data(data, largest):
    """Ties, sorted inputs, NaN, +-inf and signed zeros, over rows and flat."""
    check_top_k(make((16, 1000), data=data, seed=1), 100, largest=largest)
    check_top_k(make((5000,), data=data, seed=2), 300, largest=largest)


@pytest.mark.parametrize("data", ["random", "three", "inf"])
@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_top_k_dtypes(dtype, data):
    """Every dtype, over rows and flat, largest and smallest."""
    x = make((32, 777), dtype, data, seed=3)
    check_top_k(x, 64)
    check_top_k(x, 64, largest=False)
    check_top_k(make((3000,), dtype, data, seed=4), 500)


@pytest.mark.parametrize("data", ["nan", "zeros"])
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_top_k_float_specials(dtype, data):
    """NaN and signed zeros in every float dtype."""
    x = make((8, 513), dtype, data, seed=5)
    check_top_k(x, 200)
    check_top_k(x, 200, largest=False)


def test_top_k_vs_torch_topk():
    """The values are torch.topk's (sorted), for floats and integers."""
    for dtype in (torch.float32, torch.int32):
        x = make((64, 5000), dtype, seed=6)
        for largest in (True, False):
            values, _ = tally.top_k(x, 100, largest=largest)
            assert_same(values, torch.topk(x, 100, largest=largest, sorted=True).values)


def test_top_k_layouts():
    """dim=0, 3-D inputs, transposed, strided and pitched views (the input is not changed)."""
    wide = make((64, 300), seed=7)
    before = wide.clone()
    check_top_k(make((300, 20), seed=8), 10, dim=0)
    check_top_k(make((300, 20), seed=8), 10, dim=-2, largest=False)
    cube = make((4, 5, 300), seed=9)
    check_top_k(cube, 33, dim=-1)
    check_top_k(cube, 3, dim=1)
    check_top_k(cube[:, :, :100], 50)  # pitched rows in 3-D
    check_top_k(cube[:, 1:4, :100], 50)  # leading dimensions that don't collapse
    check_top_k(wide.t(), 40)
    check_top_k(wide[:, ::2], 40)
    check_top_k(wide[:, :100], 40)  # pitched: row stride 300, length 100
    check_top_k(wide[5], 40)  # a row of a matrix, 1-D
    check_top_k(make((5, 1), seed=10), 1)
    # Contiguous to torch, a size-1 dimension's stride anything: rows one after the other.
    check_top_k(torch.as_strided(make((4, 300), seed=11), (4, 1, 300), (300, 7, 1)), 20)
    assert torch.equal(wide, before)


def test_outputs_have_torchs_strides():
    """Outputs are contiguous with the strides torch gives, size-1 and empty dimensions too."""
    for shape, k in (((64, 300), 5), ((4, 1, 300), 3), ((300,), 7), ((2, 3, 1), 1)):
        for out in tally.top_k(make(shape, seed=12), k):
            assert out.stride() == torch.empty(out.shape).stride(), (shape, out.shape)
    for shape in ((5, 0), (0, 5), (3, 1, 4), (7,)):
        out = tally.sum(torch.rand(shape, device="cuda"), -1)
        assert out.stride() == torch.empty(out.shape).stride(), shape


def test_top_k_empty_and_errors():
    """No rows gives empty outputs; k past the dimension or k < 1 are ValueErrors."""
    values, indices = tally.top_k(torch.empty((0, 5), device="cuda"), 3)
    assert values.shape == (0, 3) and indices.shape == (0, 3) and indices.dtype == torch.int64
    x = make((4, 10))
    for call in (lambda: tally.top_k(x, 11), lambda: tally.top_k(x, 5, dim=0), lambda: tally.top_k(x[0], 11),
                 lambda: tally.top_k(torch.empty(0, device="cuda"), 1), lambda: tally.top_k(x, 0)):
        with pytest.raises(ValueError):
            call()


# --- max, min, argmax, argmin ----------------------------------------------------------------


@pytest.mark.parametrize("data", ["random", "three"])
@pytest.mark.parametrize("dtype", ALL + (torch.bool,), ids=str)
@pytest.mark.parametrize("fn", ["max", "min", "argmax", "argmin"])
def test_extrema_dtypes(fn, dtype, data):
    """Every dtype along the last dim, dim=0 and all of it (a flat index for the args)."""
    x = make((33, 1000), dtype, data, seed=11)
    for dim in (-1, 0, None):
        check_reduce(fn, x, dim)


@pytest.mark.parametrize("data", ["random", "equal", "ascending", "descending", "nan", "inf", "zeros"])
@pytest.mark.parametrize("fn", ["max", "min", "argmax", "argmin"])
def test_extrema_float_data(fn, data):
    """Ties, sorted data, NaN, infinities and signed zeros in every float dtype."""
    for dtype in FLOATS:
        x = make((17, 4097), dtype, data, seed=12)
        for dim in (-1, 0, None):
            check_reduce(fn, x, dim)


def test_extrema_nan_rule():
    """NaN is the greatest: max is NaN when a NaN is there, min only for all-NaN rows, argmax
    picks the first NaN; -0.0 == +0.0 and ties go to the lower index (also for top_k)."""
    nan, inf = math.nan, math.inf
    rows = [[1.0, nan, 3.0, nan], [nan, nan, nan, nan], [-inf, 2.0, inf, nan], [2.0, -0.0, 0.0, 2.0]]
    for dtype in FLOATS:
        x = torch.tensor(rows, dtype=dtype, device="cuda")
        assert_same(tally.max(x, -1).cpu(), torch.tensor([nan, nan, nan, 2.0], dtype=dtype))
        assert_same(tally.min(x, -1).cpu(), torch.tensor([1.0, nan, -inf, 0.0], dtype=dtype))
        assert tally.argmax(x, -1).tolist() == [1, 0, 3, 0]
        assert tally.argmin(x, -1).tolist() == [0, 0, 0, 1]
        assert tally.argmax(x).item() == 1 and tally.argmin(x).item() == 8
        assert tally.top_k(x, 4)[1].tolist() == [[1, 3, 2, 0], [0, 1, 2, 3], [3, 2, 1, 0], [0, 3, 1, 2]]
        assert tally.top_k(x, 4, largest=False)[1].tolist() == [[0, 2, 1, 3], [0, 1, 2, 3], [0, 1, 2, 3],
                                                                [1, 2, 0, 3]]


def test_extrema_layouts():
    """Non-contiguous and 3-D inputs, a 0-d input, rows of one item."""
    wide = make((64, 300), data="three", seed=13)
    cube = make((4, 5, 300), torch.int16, "three", seed=14)
    for fn in ("max", "min", "argmax", "argmin"):
        for x, dim in ((wide.t(), -1), (wide[:, ::2], -1), (wide[:, :100], -1), (wide[:, :100], None),
                       (wide.t(), None), (cube, -1), (cube, 1), (cube, None), (cube[:, 1:4, :100], -1),
                       (make((5, 1)), -1), (make(()), None), (make(()), 0)):
            check_reduce(fn, x, dim)


def test_extrema_empty():
    """An empty reduction is a ValueError; no rows gives an empty output."""
    for fn in ("max", "min", "argmax", "argmin"):
        f = getattr(tally, fn)
        for call in (lambda: f(torch.empty(0, device="cuda")), lambda: f(torch.empty((5, 0), device="cuda"), 1),
                     lambda: f(torch.empty((0, 5), device="cuda"))):
            with pytest.raises(ValueError):
                call()
        out = f(torch.empty((0, 5), device="cuda"), -1)
        assert out.shape == (0,) and out.device.type == "cuda"


def test_argmax_vs_torch():
    """argmax/argmin equal torch's on data without NaN (first index on ties)."""
    for dtype in (torch.float32, torch.int32, torch.uint8):
        x = make((64, 3000), dtype, "three", seed=15)
        for dim in (-1, 0):
            assert torch.equal(tally.argmax(x, dim), ref_argmax(x.cpu(), dim).cuda())
            assert torch.equal(tally.argmin(x, dim), ref_argmin(x.cpu(), dim).cuda())
        assert_same(tally.max(x, -1), torch.amax(x, -1))
        assert_same(tally.min(x, -1), torch.amin(x, -1))


# --- sum ----------------------------------------------------------------------------------


@pytest.mark.parametrize("data", ["random", "three", "inf"])
@pytest.mark.parametrize("dtype", INTS + (torch.bool,), ids=str)
def test_sum_integers(dtype, data):
    """Integers and bool add up exactly in int64."""
    if dtype == torch.int64 and data == "inf":
        pytest.skip("the int64 extremes overflow")
    x = make((33, 1000), dtype, data, seed=16)
    for dim in (-1, 0, None):
        check_sum(x, dim)


@pytest.mark.parametrize(
    "shape, dim", [((131072,), None), ((64, 4097), -1), ((64, 4097), 0), ((4097, 3), None), ((4096, 31), -1)]
)
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_sum_floats(dtype, shape, dim):
    """Float sums within the bound; 16-bit floats come back in their own dtype."""
    check_sum(make(shape, dtype, "positive", seed=17), dim)
    check_sum(make(shape, dtype, "random", seed=18), dim)


def test_sum_layouts_and_empty():
    """Non-contiguous and 3-D inputs; an empty sum is 0, no rows an empty output."""
    wide = make((64, 300), seed=19)
    for x, dim in ((wide.t(), -1), (wide[:, ::2], -1), (wide[:, :100], -1), (wide[:, :100], None),
                   (make((4, 5, 300), torch.int32, seed=20), 1), (make(()), None),
                   (torch.as_strided(make((4, 300), seed=21), (4, 1, 300), (300, 7, 1)), -1)):
        check_sum(x, dim)
    zero = tally.sum(torch.empty(0, device="cuda"))
    assert_tensor(zero, wide, torch.float32, ())
    assert zero.item() == 0
    zero = tally.sum(torch.empty(0, dtype=torch.int8, device="cuda"))
    assert zero.dtype == torch.int64 and zero.item() == 0
    rows = tally.sum(torch.empty((5, 0), device="cuda"), -1)
    assert rows.shape == (5,) and torch.equal(rows.cpu(), torch.zeros(5))
    assert tally.sum(torch.empty((0, 5), device="cuda"), -1).shape == (0,)


def test_usual_call_same_as_general_path():
    """The usual call (a contiguous 1-D or 2-D tensor along its last dimension or whole) takes
    a quick path without a view (_arrays.py quick_rows): the same results, dtypes, shapes and
    errors as a layout that takes the general path (a non-contiguous copy of the same data)."""
    for dtype in (torch.float32, torch.int16, torch.bool):
        x = make((7, 300), dtype, "three", seed=23)
        general = torch.empty((7, 600), dtype=dtype, device="cuda")[:, ::2]
        general.copy_(x)
        assert x.is_contiguous() and not general.is_contiguous()
        for fn in ("sum", "max", "min", "argmax", "argmin"):
            f = getattr(tally, fn)
            for dim in (-1, 1, None):
                got, want = f(x, dim), f(general, dim)
                assert got.dtype == want.dtype and got.shape == want.shape, (fn, dim)
                assert_same(got, want)
            for row in (x[2], x[3:4]):
                assert_same(f(row, -1), f(general[2] if row.dim() == 1 else general[3:4], -1))
        if dtype != torch.bool:
            for k in (1, 50, 300):
                for a, b in zip(tally.top_k(x, k), tally.top_k(general, k)):
                    assert a.dtype == b.dtype and a.shape == b.shape
                    assert_same(a, b)
            for a, b in zip(tally.top_k(x[4], 9, dim=0, largest=False), tally.top_k(general[4], 9, dim=0, largest=False)):
                assert_same(a, b)
    x = make((3, 5), seed=24)
    for bad, error in ((lambda: tally.sum(x, 1.0), TypeError), (lambda: tally.argmax(x, 2), ValueError),
                       (lambda: tally.top_k(x, 6), ValueError), (lambda: tally.top_k(x, 2, dim=None), TypeError),
                       (lambda: tally.argmax(x.cpu()), TypeError),
                       (lambda: tally.max(torch.empty((3, 0), device="cuda"), -1), ValueError)):
        with pytest.raises(error):
            bad()


# --- select --------------------------------------------------------------------------------


def _sorted(t):
    t = t.cpu()
    if t.dtype in (torch.bool, torch.float16, torch.bfloat16):
        t = t.to(torch.float32)
    return torch.sort(t).values


@pytest.mark.parametrize("density", [0.0, 0.01, 0.5, 1.0])
@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int8, torch.int64, torch.uint8,
              torch.bool], ids=str
)
def test_select(dtype, density):
    """select equals masked_select (ordered); ordered=False gives the same multiset."""
    x = make((64, 1000), dtype, seed=21)
    mask = make((64, 1000), torch.float64, "positive", seed=22) < density / 2
    got = tally.select(x, mask)
    want = torch.masked_select(x, mask)
    assert_tensor(got, x, dtype, want.shape)
    assert torch.equal(got, want)
    unordered = tally.select(x, mask, ordered=False)
    assert_tensor(unordered, x, dtype, want.shape)
    assert torch.equal(_sorted(unordered), _sorted(want))


@pytest.mark.parametrize("n", [1, 1000, 2**20 + 3])
def test_select_sizes(n):
    """1-D inputs of many sizes, NaN among the items, an uint8 mask with any nonzero value."""
    x = make((n,), data="nan", seed=23)
    pick = torch.randint(0, 4, (n,), generator=torch.Generator().manual_seed(n))
    mask = torch.tensor([0, 1, 2, 255], dtype=torch.uint8)[pick].cuda()
    want = torch.masked_select(x, mask != 0)
    assert_same(tally.select(x, mask), want)
    assert tally.select(x, mask, ordered=False).shape == want.shape


@pytest.mark.parametrize("count_first", [True, False], ids=["count_first", "copy_count"])
@pytest.mark.parametrize("n, offset", [(1, 0), (17, 3), (32, 0), (47, 15), (4099, 5), (2**20 + 3, 7), (2**22, 16)])
def test_select_count_ways(monkeypatch, count_first, n, offset):
    """The count from a reduce over the mask's 16-byte words (first) or from the copy, for
    masks that start `offset` bytes into their memory and end anywhere in a word; mask
    values 0, 1, 7, 255. Back-to-back calls on one stream (each call's count waits for
    the call before: a count read too early would be the previous one's)."""
    monkeypatch.setattr(tally._ops, "COUNT_FIRST_MAX", 1 << 62 if count_first else -1)
    x = make((n + offset,), torch.int16, seed=n)[offset:]
    pick = torch.randint(0, 4, (n + offset,), generator=torch.Generator().manual_seed(n + 1))
    mask = torch.tensor([0, 1, 7, 255], dtype=torch.uint8)[pick].cuda()[offset:]
    denser = mask.clone()
    denser[: n // 2] = 1
    want = torch.masked_select(x, mask != 0)
    want_denser = torch.masked_select(x, denser != 0)
    for _ in range(3):
        assert torch.equal(tally.select(x, mask), want)
        assert torch.equal(tally.select(x, denser), want_denser)
    assert torch.equal(_sorted(tally.select(x, mask, ordered=False)), _sorted(want))


def test_select_layouts_and_errors():
    """Transposed x and mask select in row-major order of the view; bad masks are refused."""
    x = make((300, 64), torch.int32, seed=24)
    mask = make((64, 300), torch.bool, seed=25).t()
    assert torch.equal(tally.select(x.t(), mask.t()), torch.masked_select(x.t(), mask.t()))
    assert torch.equal(tally.select(x, mask), torch.masked_select(x, mask))
    assert tally.select(torch.empty(0, device="cuda"), torch.empty(0, dtype=torch.bool, device="cuda")).shape == (0,)
    with pytest.raises(ValueError):
        tally.select(x, mask.t())
    with pytest.raises(TypeError, match=r"\bmask\b"):
        tally.select(x, mask.float())
    with pytest.raises(TypeError, match=r"\bmask\b"):
        tally.select(x, mask.cpu())
    with pytest.raises(TypeError, match=r"\bx\b"):
        tally.select(x.cpu(), mask)


# --- streams and devices ---------------------------------------------------------------------


def test_current_stream():
    """Work is queued on the caller's current stream: data written on a busy side stream is
    read after it, and the results are right after s.synchronize()."""
    x = make((256, 4096), seed=26)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        if hasattr(torch.cuda, "_sleep"):
            torch.cuda._sleep(20_000_000)  # keeps s busy, so that a wrong stream would race
        y = x * 2 + 1
        values, indices = tally.top_k(y, 50)
        total = tally.sum(y, -1)
        best = tally.argmax(y, -1)
        picked = tally.select(y, y > 3)
    s.synchronize()
    want_values, want_indices = ref_top_k(x * 2 + 1, 50)
    assert torch.equal(indices.cpu(), want_indices)
    assert_same(values.cpu(), want_values)
    assert torch.equal(best.cpu(), ref_argmax((x * 2 + 1).cpu(), -1))
    torch.testing.assert_close(total, (x * 2 + 1).sum(-1), rtol=1e-4, atol=1e-3)
    assert torch.equal(picked, torch.masked_select(x * 2 + 1, x * 2 + 1 > 3))


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_second_device():
    """An input on cuda:1 gives outputs on cuda:1 while cuda:0 is current."""
    x = make((16, 1000), seed=27, device="cuda:1")
    with torch.cuda.device(0):
        check_top_k(x, 10)
        check_reduce("argmax", x, -1)
        check_sum(x, None)
