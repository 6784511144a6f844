"""tally's functions on JAX arrays on the GPU, against jax.lax.top_k, jnp.argmax and jnp.sum.
JAX calls are synchronous: the outputs are ready when the call returns.

tally's indices and integer sums are int64, which JAX holds only with jax_enable_x64: the
checks run with it on (the `x64` fixture), and test_default_config_int64_outputs checks that
without it an int64 output is either right or refused, never written into an int32 buffer."""

import pytest

jax = pytest.importorskip("jax")
np = pytest.importorskip("numpy")

import jax.numpy as jnp  # noqa: E402

import tally  # noqa: E402


def _gpu():
    try:
        return jax.devices("gpu")[0]
    except RuntimeError:  # no GPU backend
        return None


GPU = _gpu()
pytestmark = [pytest.mark.cuda, pytest.mark.skipif(GPU is None, reason="JAX has no GPU device")]


def _x64_enabled():
    read = getattr(jax.config, "read", None)
    return bool(read("jax_enable_x64") if read else jax.config.jax_enable_x64)


@pytest.fixture
def x64():
    """jax_enable_x64 on for the test, as it was afterwards."""
    before = _x64_enabled()
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", before)


def make(shape, dtype=np.float32, seed=0, three=False):
    """Seeded host data (normal floats or integers; three: three distinct values, many ties)
    and the same array on JAX's GPU."""
    rng = np.random.default_rng(seed)
    if three:
        h = np.array([1, 5, 9], dtype=dtype)[rng.integers(0, 3, size=shape)]
    elif np.dtype(dtype).kind == "f":
        h = rng.standard_normal(shape).astype(dtype)
    else:
        h = rng.integers(-1000, 1000, size=shape).astype(dtype)
    return h, jax.device_put(h, GPU)


def _on_gpu(out, dtype=None):
    """out as a host array, after checking it is a JAX array on the GPU (of dtype)."""
    assert isinstance(out, jax.Array)
    assert list(out.devices()) == [GPU]
    if dtype is not None:
        assert out.dtype == dtype, (out.dtype, dtype)
    return np.asarray(out)


@pytest.mark.parametrize("shape, k", [((8, 1000), 50), ((5000,), 300), ((4, 4097), 2048)])
def test_top_k(shape, k, x64):
    """Values equal jax.lax.top_k's; indices (int64) are the stable order's."""
    h, x = make(shape, seed=k)
    values, indices = tally.top_k(x, k)
    want_values, _ = jax.lax.top_k(x, k)
    np.testing.assert_array_equal(_on_gpu(values, np.float32), np.asarray(want_values))
    order = np.argsort(-h, axis=-1, kind="stable")[..., :k]  # no NaN or -0.0 here: -h orders like h, reversed
    np.testing.assert_array_equal(_on_gpu(indices, np.int64), order)


def test_top_k_ties_and_smallest(x64):
    """Tied values keep index order; largest=False gives the smallest first."""
    h, x = make((16, 1000), np.int32, seed=1, three=True)
    for largest in (True, False):
        _, indices = tally.top_k(x, 100, largest=largest)
        order = np.argsort(-h if largest else h, axis=-1, kind="stable")[:, :100]
        np.testing.assert_array_equal(_on_gpu(indices, np.int64), order)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_argmax_argmin(dtype, x64):
    """argmax/argmin equal jnp's (first index on ties), along rows and flat; max/min numpy's."""
    h, x = make((33, 1000), dtype, seed=2, three=True)
    for dim in (-1, 0, None):
        np.testing.assert_array_equal(_on_gpu(tally.argmax(x, dim), np.int64), np.asarray(jnp.argmax(x, axis=dim)))
        np.testing.assert_array_equal(_on_gpu(tally.argmin(x, dim), np.int64), np.asarray(jnp.argmin(x, axis=dim)))
    np.testing.assert_array_equal(_on_gpu(tally.max(x, -1), dtype), h.max(-1))
    np.testing.assert_array_equal(_on_gpu(tally.min(x, 0), dtype), h.min(0))


def test_sum(x64):
    """Float sums close to numpy's and jnp.sum's; integer sums exact in int64."""
    h, x = make((64, 4097), seed=3)
    np.testing.assert_allclose(_on_gpu(tally.sum(x, -1), np.float32), h.astype(np.float64).sum(-1),
                               rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(_on_gpu(tally.sum(x)), np.asarray(jnp.sum(x)), rtol=1e-4, atol=1e-2)
    h, x = make((64, 4097), np.int32, seed=4)
    np.testing.assert_array_equal(_on_gpu(tally.sum(x, 0), np.int64), h.sum(0, dtype=np.int64))


def test_select():
    """select equals boolean indexing on the host."""
    h, x = make((64, 1000), seed=5)
    got = tally.select(x, x > 0.5)
    np.testing.assert_array_equal(_on_gpu(got, np.float32), h[h > 0.5])


def test_default_config_int64_outputs():
    """Without jax_enable_x64 (JAX's default), an int64 output (argmax, top_k's indices, an
    integer sum) is either right or refused with an error: never wrong."""
    if _x64_enabled():
        pytest.skip("jax_enable_x64 is on in this process")
    h, x = make((33, 1000), np.int32, seed=6, three=True)
    calls = {
        "argmax": (lambda: tally.argmax(x, -1), np.argmax(h, -1)),
        "top_k": (lambda: tally.top_k(x, 10)[1], np.argsort(-h, axis=-1, kind="stable")[:, :10]),
        "sum": (lambda: tally.sum(x, -1), h.sum(-1, dtype=np.int64)),
    }
    for name, (call, want) in calls.items():
        try:
            got = call()
        except (TypeError, ValueError, RuntimeError):
            continue
        np.testing.assert_array_equal(np.asarray(got), want, err_msg=name)
