"""Tests that need no GPU (what CI runs): the package imports, its version, the dtype table of
sum, and the argument checks that happen before any CUDA call."""

import re
from pathlib import Path

import pytest

import tally
import tally._tally

ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS = ["top_k", "sum", "max", "min", "argmax", "argmin", "select"]


def _call(fn, x, mask=None):
    """Calls tally.<fn> with x as its array (and mask for select)."""
    if fn == "top_k":
        return tally.top_k(x, 1)
    if fn == "select":
        return tally.select(x, x if mask is None else mask)
    return getattr(tally, fn)(x)


def _names(message, name):
    return re.search(rf"\b{name}\b", message) is not None


# --- the module --------------------------------------------------------------------------


def test_public_names():
    """Every public function is exported and callable."""
    for name in FUNCTIONS:
        assert callable(getattr(tally, name)), name
    assert set(FUNCTIONS + ["MAX_TOP_K_ROWS", "__version__"]) <= set(tally.__all__)


def test_version_matches_header_and_pyproject():
    """tally.__version__ is include/tally/version.hpp's version and python/pyproject.toml's."""
    header = (ROOT / "include" / "tally" / "version.hpp").read_text()
    parts = [re.search(rf"^#define TALLY_VERSION_{p}\s+(\d+)\s*$", header, re.M) for p in ("MAJOR", "MINOR", "PATCH")]
    assert all(parts), "version.hpp lacks TALLY_VERSION_MAJOR/MINOR/PATCH"
    header_version = ".".join(m.group(1) for m in parts)

    pyproject = (ROOT / "python" / "pyproject.toml").read_text()
    project = re.search(r"^\[project\]$(.*?)(?=^\[)", pyproject, re.M | re.S).group(1)
    pyproject_version = re.search(r'^version\s*=\s*"([^"]+)"', project, re.M).group(1)

    assert tally.__version__ == header_version == pyproject_version


def test_max_top_k_rows():
    """The one-launch limit of top_k over rows is 2048 (tally::max_top_k_pieces)."""
    assert tally._tally.max_top_k_rows == 2048
    assert tally.MAX_TOP_K_ROWS == 2048


@pytest.mark.parametrize(
    "dtype, expected",
    [("int8", "int64"), ("int16", "int64"), ("int32", "int64"), ("int64", "int64"),
     ("uint8", "int64"), ("uint16", "int64"), ("uint32", "int64"), ("uint64", "uint64"),
     ("float16", "float16"), ("bfloat16", "bfloat16"), ("float32", "float32"), ("float64", "float64")],
)
def test_sum_dtype(dtype, expected):
    """sum's result dtype: integers widen to int64 (uint64 stays), floats keep their type."""
    assert tally._tally.sum_dtype(dtype) == expected


@pytest.mark.parametrize("dtype", ["complex64", "float8", ""])
def test_sum_dtype_unknown(dtype):
    """A dtype the kernels don't serve is a ValueError."""
    with pytest.raises(ValueError):
        tally._tally.sum_dtype(dtype)


# --- arrays that are not CUDA arrays -----------------------------------------------------


def _host_array(kind):
    if kind == "list":
        return [3.0, 1.0, 2.0]
    if kind == "numpy":
        np = pytest.importorskip("numpy")
        return np.array([3.0, 1.0, 2.0], dtype=np.float32)
    torch = pytest.importorskip("torch")
    return torch.tensor([3.0, 1.0, 2.0])


@pytest.mark.parametrize("kind", ["list", "numpy", "torch_cpu"])
@pytest.mark.parametrize("fn", FUNCTIONS)
def test_host_array_is_type_error_naming_x(fn, kind):
    """A host array (list, numpy, CPU torch tensor) is a TypeError that names x."""
    x = _host_array(kind)
    with pytest.raises(TypeError) as info:
        _call(fn, x)
    assert _names(str(info.value), "x"), str(info.value)


@pytest.mark.parametrize("k, error", [(0, ValueError), (-1, ValueError), (1.5, TypeError), ("3", TypeError),
                                      (True, TypeError), (None, TypeError)])
def test_top_k_bad_k(k, error):
    """k is checked before the array: k < 1 is a ValueError, a k that is not an int a TypeError."""
    with pytest.raises(error, match=r"\bk\b"):
        tally.top_k(object(), k)


# --- checks on a CUDA array, faked ---------------------------------------------------------


class FakeCudaArray:
    """A __cuda_array_interface__ producer at a made-up address: enough for the checks that
    run before any kernel (tally._tally.device_of is patched to answer device 0)."""

    def __init__(self, shape, typestr="<f4", strides=None):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr, "data": (0x10000, False),
                                         "strides": strides, "version": 3}


@pytest.fixture
def fake_device(monkeypatch):
    monkeypatch.setattr(tally._tally, "device_of", lambda pointer: 0)
    return FakeCudaArray


def test_select_host_mask_names_mask(fake_device):
    """select with a CUDA x and a host mask is a TypeError that names mask."""
    with pytest.raises(TypeError) as info:
        tally.select(fake_device((3,)), [True, False, True])
    assert _names(str(info.value), "mask"), str(info.value)


def test_select_mask_dtype(fake_device):
    """A mask that is not bool or uint8 is a TypeError that names mask."""
    with pytest.raises(TypeError, match=r"\bmask\b"):
        tally.select(fake_device((3,)), fake_device((3,), "<f4"))


def test_select_shape_mismatch(fake_device):
    """A mask of another shape than x is a ValueError."""
    with pytest.raises(ValueError, match="shape"):
        tally.select(fake_device((3, 4)), fake_device((4, 3), "|b1"))


def test_unsupported_dtype(fake_device):
    """An array of a dtype the kernels don't serve (complex) is a TypeError."""
    with pytest.raises(TypeError):
        tally.sum(fake_device((3,), "<c8"))


def test_top_k_k_larger_than_dimension(fake_device):
    """k larger than the dimension's length is a ValueError (1-D and rows)."""
    with pytest.raises(ValueError, match="larger"):
        tally.top_k(fake_device((4,)), 5)
    with pytest.raises(ValueError, match="larger"):
        tally.top_k(fake_device((8, 4)), 5)


def test_interface_array_needs_contiguous_rows(fake_device):
    """A generic __cuda_array_interface__ array is not copied: a dim other than the last, or
    rows of non-unit stride, are ValueErrors."""
    with pytest.raises(ValueError, match="contiguous"):
        tally.top_k(fake_device((4, 8)), 2, dim=0)
    with pytest.raises(ValueError, match="contiguous"):
        tally.max(fake_device((4, 8), strides=(4, 8)), dim=-1)


@pytest.mark.parametrize("fn", ["max", "min", "argmax", "argmin"])
def test_empty_reduction(fn, fake_device):
    """max/min/argmax/argmin over an empty reduction are ValueErrors."""
    with pytest.raises(ValueError):
        getattr(tally, fn)(fake_device((0,)))
    with pytest.raises(ValueError):
        getattr(tally, fn)(fake_device((3, 0)), dim=1)


@pytest.mark.parametrize("fn", ["sum", "max", "argmax", "top_k"])
def test_bad_dim(fn, fake_device):
    """A dim out of range is a ValueError; a dim that is not an int a TypeError."""
    f = (lambda x, dim: tally.top_k(x, 1, dim=dim)) if fn == "top_k" else getattr(tally, fn)
    with pytest.raises(ValueError, match="dim"):
        f(fake_device((3, 4)), dim=2)
    with pytest.raises(ValueError, match="dim"):
        f(fake_device((3, 4)), dim=-3)
    with pytest.raises(TypeError, match="dim"):
        f(fake_device((3, 4)), dim=1.0)


def test_contiguous_strides():
    """Output strides as torch lays out a contiguous tensor (an extent of 0 or 1 counts as 1)."""
    from tally._arrays import contiguous_strides

    assert contiguous_strides(()) == ()
    assert contiguous_strides((7,)) == (1,)
    assert contiguous_strides((64, 50)) == (50, 1)
    assert contiguous_strides((2, 1, 3)) == (3, 3, 1)
    assert contiguous_strides((3, 0)) == (1, 1)
    assert contiguous_strides((0, 5)) == (5, 1)


def test_top_k_one_flat_call_rule():
    """top_k's choice between one flat call and one launch over rows (both of its paths use
    it): one row of a 1-D input, or one row past the one-launch k, goes flat."""
    from tally import _ops

    limit = tally.MAX_TOP_K_ROWS
    assert _ops._one_flat_call(1, 1, 5) and _ops._one_flat_call(1, 1, limit + 1)
    assert _ops._one_flat_call(1, 2, limit + 1)
    assert not _ops._one_flat_call(1, 2, limit)
    assert not _ops._one_flat_call(3, 2, 5) and not _ops._one_flat_call(3, 2, limit + 1)
