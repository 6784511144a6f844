"""tally's functions over CUDA arrays: argument checks, the shape as rows, outputs from the
input's framework, one kernel call on the framework's current stream."""

from __future__ import annotations

from . import _tally
from ._arrays import KERNEL_DTYPES, adapter_of, view

MAX_TOP_K_ROWS = _tally.max_top_k_rows


def _checked(x, name, fn):
    v = view(x, name)
    if v.kernel_dtype not in KERNEL_DTYPES:
        raise TypeError(f"tally.{fn}: {name} has dtype {v.dtype}, which is not one of "
                        f"{', '.join(sorted(KERNEL_DTYPES | {'bool'}))}")
    return v


def _rows(v, dim, fn):
    """(view, rows, length, row stride, leading shape) of v reduced along dim (None: all of
    it). Rows with unit stride and a stride >= their length are used as they are; any
    other layout is first copied by the framework into contiguous rows."""
    ndim = len(v.shape)
    if ndim and (dim == -1 or dim == ndim - 1) and isinstance(dim, int) and v.is_contiguous():
        lead = v.shape[:-1]  # the usual call: rows one after the other
        rows = 1
        for s in lead:
            rows *= s
        return v, rows, v.shape[-1], v.shape[-1], lead
    if dim is None:
        if not v.is_contiguous():
            v = v.adapter.contiguous_last(v, None)
        return v, 1, v.size, v.size, ()
    if not isinstance(dim, int):
        raise TypeError(f"tally.{fn}: dim must be an int or None, not {type(dim).__name__}")
    if ndim == 0:
        if dim not in (0, -1):
            raise ValueError(f"tally.{fn}: dim {dim} is out of range for a 0-d array")
        return v, 1, 1, 1, ()
    if not -ndim <= dim < ndim:
        raise ValueError(f"tally.{fn}: dim {dim} is out of range for an array of {ndim} dimensions")
    dim %= ndim
    if dim != ndim - 1 or not _rows_usable(v):
        v = v.adapter.contiguous_last(v, dim)
    length = v.shape[-1]
    lead = v.shape[:-1]
    rows = 1
    for s in lead:
        rows *= s
    stride = v.strides[-2] if ndim >= 2 and rows > 1 else length
    return v, rows, length, stride, lead


def _rows_usable(v):
    """True when the leading dimensions collapse into one row stride >= the row length and
    the items of a row are adjacent."""
    shape, strides = v.shape, v.strides
    if shape[-1] > 1 and strides[-1] != 1:
        return False
    if len(shape) >= 2:
        if strides[-2] < shape[-1] and shape[-2] > 1:
            return False
        for i in range(len(shape) - 2):
            if shape[i] > 1 and strides[i] != strides[i + 1] * shape[i + 1]:
                return False
    return True


def _reduce(kernel, fn, x, dim, out_dtype_of, empty_ok):
    adapter = adapter_of(x)
    quick = adapter.quick_rows(x, dim) if adapter is not None else None
    if quick is not None:  # the usual call (a contiguous torch tensor), without a view
        dtype, kernel_dtype, ptr, rows, length, lead, device = quick
        if length == 0 and rows > 0 and not empty_ok:
            raise ValueError(f"tally.{fn}: x has an empty dimension to reduce")
        out_dtype = out_dtype_of(dtype)
        out = adapter.empty_on(device, lead, out_dtype)
        if rows > 0:
            kernel(kernel_dtype, ptr, rows, length, length, adapter.ptr(out), device, adapter.stream_of(device))
        return out
    v = _checked(x, "x", fn)
    v, rows, length, stride, lead = _rows(v, dim, fn)
    if length == 0 and rows > 0 and not empty_ok:
        raise ValueError(f"tally.{fn}: x has an empty dimension to reduce")
    out_dtype = out_dtype_of(v.dtype)
    out = v.adapter.empty(v, lead, out_dtype)
    if rows > 0:
        kernel(v.kernel_dtype, v.ptr, rows, length, stride, v.adapter.ptr(out), v.device, v.adapter.stream(v))
        v.adapter.finish(v)
    return v.adapter.result(out, out_dtype)


_SUM_DTYPES = {"bool": "int64"}


def _sum_dtype(dtype):
    d = _SUM_DTYPES.get(dtype)
    if d is None:
        d = _SUM_DTYPES[dtype] = _tally.sum_dtype(dtype)
    return d


def _same_dtype(dtype):
    return dtype


def _index_dtype(dtype):
    return "int64"


def sum(x, dim=None):
    """The sum of x (dim=None) or of each row along dim. Integers (and bool) add up in
    int64 (uint64 in uint64), float16/bfloat16 in float32 (the result keeps the input's
    type), float32 and float64 in their own type, in an unspecified order. An empty
    reduction gives 0."""
    return _reduce(_tally.sum_rows, "sum", x, dim, _sum_dtype, empty_ok=True)


def max(x, dim=None):
    """The largest item of x or of each row along dim; NaN is greater than every number (a
    row holding a NaN gives NaN)."""
    return _reduce(_tally.max_rows, "max", x, dim, _same_dtype, empty_ok=False)


def min(x, dim=None):
    """The smallest item of x or of each row along dim; NaN is greater than every number (a
    row gives NaN only when all of it is NaN)."""
    return _reduce(_tally.min_rows, "min", x, dim, _same_dtype, empty_ok=False)


def argmax(x, dim=None):
    """The int64 index of the first largest item of x (flat index for dim=None) or of each
    row along dim; NaN counts as the largest."""
    return _reduce(_tally.argmax_rows, "argmax", x, dim, _index_dtype, empty_ok=False)


def argmin(x, dim=None):
    """The int64 index of the first smallest item of x (flat index for dim=None) or of each
    row along dim."""
    return _reduce(_tally.argmin_rows, "argmin", x, dim, _index_dtype, empty_ok=False)


def _one_flat_call(rows, ndim, k):
    """Whether top_k runs as one flat call (any k): one row of a 1-D input, or one row
    past the one-launch limit; else one launch over the rows (k <= MAX_TOP_K_ROWS)."""
    return rows == 1 and (ndim <= 1 or k > MAX_TOP_K_ROWS)


def top_k(x, k, dim=-1, largest=True):
    """(values, indices): the k largest (or smallest) items of each row of x along dim,
    best first, equal values by the lower index, NaN greatest; indices int64, within the
    row. Arrays of x's framework of shape x.shape with dim's extent k (1-D: (k,)). One
    launch for all rows while k <= 2048; a 1-D input takes any k."""
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"tally.top_k: k must be an int, not {type(k).__name__}")
    if k < 1:
        raise ValueError(f"tally.top_k: k must be at least 1, got {k}")
    adapter = adapter_of(x)
    quick = adapter.quick_rows(x, dim) if adapter is not None and dim is not None else None
    if quick is not None:  # the usual call (a contiguous torch tensor), without a view
        dtype, kernel_dtype, ptr, rows, length, lead, device = quick
        if k > length:
            raise ValueError(f"tally.top_k: k ({k}) is larger than the dimension's {length} items")
        if rows == 1 or k <= MAX_TOP_K_ROWS:
            values = adapter.empty_on(device, lead + (k,), dtype)
            indices = adapter.empty_on(device, lead + (k,), "int64")
            if rows > 0:
                stream = adapter.stream_of(device)
                if _one_flat_call(rows, len(lead) + 1, k):
                    _tally.top_k_flat(kernel_dtype, ptr, length, k, largest, adapter.ptr(values), adapter.ptr(indices),
                                      device, stream)
                else:
                    _tally.top_k_rows(kernel_dtype, ptr, rows, length, length, k, largest, adapter.ptr(values),
                                      adapter.ptr(indices), device, stream)
            return values, indices
    v = _checked(x, "x", "top_k")
    if dim is None:
        raise TypeError("tally.top_k: dim must be an int")
    ndim = len(v.shape)
    d = dim % ndim if ndim and -ndim <= dim < ndim else dim
    v, rows, length, stride, lead = _rows(v, dim, "top_k")
    if k > length:
        raise ValueError(f"tally.top_k: k ({k}) is larger than the dimension's {length} items")
    adapter = v.adapter
    values = adapter.empty(v, lead + (k,), v.dtype)
    indices = adapter.empty(v, lead + (k,), "int64")
    if rows > 0:
        stream = adapter.stream(v)
        vp, ip = adapter.ptr(values), adapter.ptr(indices)
        dtype = v.kernel_dtype
        if _one_flat_call(rows, ndim, k):
            _tally.top_k_flat(dtype, v.ptr, length, k, largest, vp, ip, v.device, stream)
        elif k <= MAX_TOP_K_ROWS:
            _tally.top_k_rows(dtype, v.ptr, rows, length, stride, k, largest, vp, ip, v.device, stream)
        else:  # beyond the one-launch limit: one flat call per row
            for r in range(rows):
                _tally.top_k_flat(dtype, v.ptr + r * stride * v.itemsize, length, k, largest,
                                  vp + r * k * v.itemsize, ip + r * k * 8, v.device, stream)
        adapter.finish(v)
    indices = adapter.result(indices, "int64")
    if ndim >= 2 and d != ndim - 1:  # back to dim's place
        values, indices = _move_last_to(adapter, values, d), _move_last_to(adapter, indices, d)
    return values, indices


def _move_last_to(adapter, out, d):
    name = adapter.name
    if name == "torch":
        return adapter.torch.movedim(out, -1, d)
    if name == "cupy":
        return adapter.cupy.moveaxis(out, -1, d)
    if name == "jax":
        return adapter.jnp.moveaxis(out, -1, d)
    raise ValueError("tally.top_k: dim must be the last dimension for this array type")


# select counts the mask first (a reduce over its bytes, then the copy) up to this many
# items: the host then has the count a mask's read after the stream reaches the call and
# returns while the copy runs, so that Python's next call overlaps the GPU's work. Above
# it the extra read of the mask costs more than the overlap gains, and the copy's own
# count (at its last tile) is awaited. docs/performance.md#python-select-count-first.
COUNT_FIRST_MAX = 1 << 25


def select(x, mask, ordered=True):
    """The items of x where mask (bool or uint8, x's shape) is nonzero, as a 1-D array of
    x's framework: in x's order (row-major), or in any order with ordered=False (faster).
    Waits for the count (the output's size depends on it), not for the copy."""
    adapter = adapter_of(x)
    quick = adapter.quick_select(x, mask) if adapter is not None else None
    if quick is not None:  # the usual call (contiguous torch tensors), without views
        dtype, itemsize, xp, mp, n, device = quick
        out = adapter.empty_on(device, (n,), dtype)
        if n == 0:
            return out
        stream = adapter.stream_of(device)
    else:
        v = _checked(x, "x", "select")
        m = view(mask, "mask")
        if m.dtype not in ("bool", "uint8", "int8"):
            raise TypeError(f"tally.select: mask must be bool or uint8, not {m.dtype}")
        if m.shape != v.shape:
            raise ValueError(f"tally.select: mask's shape {m.shape} is not x's {v.shape}")
        if m.adapter is not v.adapter or m.device != v.device:
            raise ValueError("tally.select: mask must be an array of x's framework on x's device")
        if not v.is_contiguous():
            v = v.adapter.contiguous_last(v, None)
        if not m.is_contiguous():
            m = m.adapter.contiguous_last(m, None)
        n, adapter, itemsize, xp, mp, device = v.size, v.adapter, v.itemsize, v.ptr, m.ptr, v.device
        out = adapter.empty(v, (n,), v.dtype)
        if n == 0:
            return out
        stream = adapter.stream(v)
    _tally.select(itemsize, xp, mp, n, adapter.ptr(out), ordered, n <= COUNT_FIRST_MAX, device, stream)
    selected = _tally.wait_count(device, stream)
    if quick is None:
        adapter.finish(v)  # JAX: the copy done before the array is handed back
    # A small selection (at most a quarter of the items) gets its own array, so that the
    # input-sized one can be freed; the copy costs at most a quarter of the kernel's traffic.
    return out[:selected] if 4 * selected > n else adapter.copy(out[:selected])
