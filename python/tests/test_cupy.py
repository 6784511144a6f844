"""tally's functions on CuPy arrays, against NumPy on the host: a stable argsort of the items'
ranks for top_k (NaN greatest, ties by the lower index, -0.0 == +0.0), np.argmax/argmin of
those ranks for the arg-extrema, float64 sums with an error bound, boolean indexing for
select. Covers the dtypes torch lacks (uint16, uint32, uint64)."""

import math

import pytest

cp = pytest.importorskip("cupy")
np = pytest.importorskip("numpy")

import tally  # noqa: E402


def _gpu_count():
    try:
        return cp.cuda.runtime.getDeviceCount()
    except Exception:  # CUDA driver or runtime missing
        return 0


pytestmark = [pytest.mark.cuda, pytest.mark.skipif(_gpu_count() == 0, reason="CuPy sees no CUDA GPU")]

FLOATS = ("float16", "float32", "float64")
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def make(shape, dtype="float32", data="random", seed=0):
    """Seeded data on the GPU: random floats from cupy.random, integers over the dtype's whole
    range from NumPy's generator; three: three distinct values; nan: with NaN and +-inf;
    zeros: -0.0, +0.0 and +-1; positive: uniform in [0, 0.5)."""
    n = math.prod(shape)
    dt = np.dtype(dtype)
    rng = cp.random.default_rng(seed)
    u = rng.random(n)
    if dt == np.bool_:
        x = u < 0.5
    elif data == "three":
        x = cp.asarray(np.array([1, 5, 9], dtype=dt))[(u * 3).astype(np.int64)]
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        x = cp.asarray(np.random.default_rng(seed).integers(info.min, info.max, size=n, dtype=dt, endpoint=True))
    elif data == "positive":
        x = u * 0.5
    elif data == "zeros":
        x = cp.asarray(np.array([-0.0, 0.0, 1.0, -1.0]))[(u * 4).astype(np.int64)]
    else:
        x = rng.standard_normal(n)
        if data == "nan":
            x[u < 0.1] = cp.nan
            x[(u >= 0.1) & (u < 0.13)] = cp.inf
            x[(u >= 0.13) & (u < 0.16)] = -cp.inf
    return x.astype(dt).reshape(shape)


def _rank(h):
    """Dense ranks in the library's order: NaN greatest (all NaNs one rank), -0.0 == +0.0."""
    return np.unique(h, return_inverse=True, equal_nan=True)[1].reshape(h.shape)


def ref_top_k(h, k, axis=-1, largest=True):
    rank = _rank(h)
    order = np.argsort(-rank if largest else rank, axis=axis, kind="stable")
    order = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(h, order, axis), order


def _ref_arg(fn, h, axis):
    rank = _rank(h)
    if axis is None:
        rank = rank.reshape(-1)
    return (np.argmax if fn == "argmax" else np.argmin)(rank, axis=axis if axis is not None else 0)  # first index


def ref_reduce(fn, h, axis):
    if fn in ("argmax", "argmin"):
        return np.asarray(_ref_arg(fn, h, axis), dtype=np.int64)
    index = _ref_arg("argmax" if fn == "max" else "argmin", h, axis)
    flat = h.reshape(-1) if axis is None else h
    return np.take_along_axis(flat, np.expand_dims(index, 0 if axis is None else axis), 0 if axis is None else axis
                              ).squeeze(0 if axis is None else axis)


def check_top_k(x, k, axis=-1, largest=True):
    """tally.top_k against the stable order: indices exactly, values equal (NaN == NaN)."""
    values, indices = tally.top_k(x, k, dim=axis, largest=largest)
    want_values, want_indices = ref_top_k(cp.asnumpy(x), k, axis, largest)
    assert isinstance(values, cp.ndarray) and isinstance(indices, cp.ndarray)
    assert values.dtype == x.dtype and indices.dtype == np.int64
    assert values.shape == want_values.shape and indices.shape == want_indices.shape
    np.testing.assert_array_equal(cp.asnumpy(indices), want_indices)
    np.testing.assert_array_equal(cp.asnumpy(values), want_values)


def check_reduce(fn, x, axis):
    got = getattr(tally, fn)(x, axis)
    want = ref_reduce(fn, cp.asnumpy(x), axis)
    assert isinstance(got, cp.ndarray)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    np.testing.assert_array_equal(cp.asnumpy(got), want)


def check_sum(x, axis):
    """Integers exact (int64; uint64 in uint64, wrapping alike); floats within a bound scaled
    by sum |x| and sqrt(n), in x's dtype."""
    got = tally.sum(x, axis)
    h = cp.asnumpy(x)
    assert isinstance(got, cp.ndarray)
    if h.dtype.kind in "iub":
        want = h.sum(axis, dtype=np.uint64 if h.dtype == np.uint64 else np.int64)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(cp.asnumpy(got), want)
        return
    h64 = h.astype(np.float64)
    want, scale = h64.sum(axis), np.abs(h64).sum(axis)
    n = h.size if axis is None else h.shape[axis]
    eps_acc = np.finfo(np.float64 if h.dtype == np.float64 else np.float32).eps
    tol = eps_acc * scale * (2 * math.sqrt(n) + 8) + np.finfo(h.dtype).eps * np.abs(want)
    assert got.dtype == h.dtype and got.shape == want.shape
    assert np.all(np.abs(cp.asnumpy(got).astype(np.float64) - want) <= tol)


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_top_k_dtypes(dtype):
    """Every dtype CuPy has, over rows and flat, largest and smallest; tied data too."""
    for data in ("random", "three"):
        x = make((16, 1000), dtype, data, seed=1)
        check_top_k(x, 100)
        check_top_k(x, 100, largest=False)
        check_top_k(make((5000,), dtype, data, seed=2), 300)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("data", ["nan", "zeros"])
def test_top_k_specials(data, dtype):
    """NaN first for largest and last for smallest; signed zeros tie by index."""
    x = make((8, 777), dtype, data, seed=3)
    check_top_k(x, 200)
    check_top_k(x, 200, largest=False)


@pytest.mark.parametrize("shape, k", [((4, 4097), 1), ((4, 4097), 33), ((4, 4097), 2048), ((4096, 33), 33),
                                      ((2**16,), 3000), ((2, 5000), 3000)])
def test_top_k_shapes(shape, k):
    """k around a warp and at the one-launch limit, short rows, k > 2048 flat and per row."""
    check_top_k(make(shape, seed=k), k)


def test_top_k_layouts():
    """axis 0, 3-D, transposed, strided and pitched views."""
    wide = make((64, 300), seed=4)
    check_top_k(make((300, 20), seed=5), 10, axis=0)
    check_top_k(make((4, 5, 300), "int32", seed=6), 3, axis=1)
    check_top_k(make((4, 5, 300), seed=7)[:, :, :100], 50)
    for view in (wide.T, wide[:, ::2], wide[:, :100]):
        check_top_k(view, 40)
    with pytest.raises(ValueError):
        tally.top_k(wide, 301)


@pytest.mark.parametrize("fn", ["max", "min", "argmax", "argmin"])
@pytest.mark.parametrize("dtype", FLOATS + INTS + ("bool",))
def test_extrema(fn, dtype):
    """Along the last axis, axis 0 and all of it (flat index), tied data too."""
    for data in ("random", "three"):
        x = make((33, 1000), dtype, data, seed=8)
        for axis in (-1, 0, None):
            check_reduce(fn, x, axis)


@pytest.mark.parametrize("fn", ["max", "min", "argmax", "argmin"])
def test_extrema_specials(fn):
    """NaN greatest, signed zeros equal, the first index on ties; a transposed view."""
    for data in ("nan", "zeros"):
        x = make((17, 999), "float32", data, seed=9)
        for axis in (-1, 0, None):
            check_reduce(fn, x, axis)
        check_reduce(fn, x.T, -1)
    with pytest.raises(ValueError):
        getattr(tally, fn)(cp.empty(0, dtype=cp.float32))


@pytest.mark.parametrize("dtype", INTS + ("bool",))
def test_sum_integers(dtype):
    """Exact integer sums: int64 (uint64 for uint64)."""
    x = make((33, 1000), dtype, seed=10)
    for axis in (-1, 0, None):
        check_sum(x, axis)


@pytest.mark.parametrize("dtype", FLOATS)
def test_sum_floats(dtype):
    """Float sums within the bound, float16 back in float16; an empty sum is 0."""
    for shape, axis in (((131072,), None), ((64, 4097), -1), ((64, 4097), 0)):
        check_sum(make(shape, dtype, "positive", seed=11), axis)
        check_sum(make(shape, dtype, "random", seed=12), axis)
    zero = tally.sum(cp.empty(0, dtype=dtype))
    assert zero.dtype == np.dtype(dtype) and zero.shape == () and float(zero) == 0.0


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint16", "uint8"])
@pytest.mark.parametrize("density", [0.0, 0.01, 0.5, 1.0])
def test_select(dtype, density):
    """select equals boolean indexing (row-major); ordered=False the same multiset."""
    x = make((64, 1000), dtype, seed=13)
    mask = make((64, 1000), "float64", "positive", seed=14) < density / 2
    want = cp.asnumpy(x)[cp.asnumpy(mask)]
    got = tally.select(x, mask)
    assert isinstance(got, cp.ndarray) and got.dtype == x.dtype
    np.testing.assert_array_equal(cp.asnumpy(got), want)
    unordered = tally.select(x, mask.astype(cp.uint8), ordered=False)
    np.testing.assert_array_equal(np.sort(cp.asnumpy(unordered)), np.sort(want))


def test_select_errors():
    """A mask of another shape is a ValueError; a float mask a TypeError; a host mask names mask."""
    x = make((10, 20))
    with pytest.raises(ValueError):
        tally.select(x, cp.ones((20, 10), dtype=cp.bool_))
    with pytest.raises(TypeError, match=r"\bmask\b"):
        tally.select(x, cp.ones((10, 20), dtype=cp.float32))
    with pytest.raises(TypeError, match=r"\bmask\b"):
        tally.select(x, np.ones((10, 20), dtype=np.bool_))


def test_current_stream():
    """Work runs on CuPy's current stream; results are right after that stream synchronizes."""
    x = make((256, 4096), seed=15)
    with cp.cuda.Stream(non_blocking=True) as s:
        y = x * 2 + 1
        values, indices = tally.top_k(y, 50)
        best = tally.argmax(y, -1)
        total = tally.sum(y, -1)
        picked = tally.select(y, y > 3)
    s.synchronize()
    h = cp.asnumpy(x) * 2 + 1
    want_values, want_indices = ref_top_k(h, 50)
    np.testing.assert_array_equal(cp.asnumpy(indices), want_indices)
    np.testing.assert_array_equal(cp.asnumpy(values), want_values)
    np.testing.assert_array_equal(cp.asnumpy(best), ref_reduce("argmax", h, -1))
    np.testing.assert_allclose(cp.asnumpy(total), h.astype(np.float64).sum(-1), rtol=1e-4)
    np.testing.assert_array_equal(cp.asnumpy(picked), h[h > 3])
