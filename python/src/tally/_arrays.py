"""CUDA arrays of PyTorch, CuPy, JAX and any ``__cuda_array_interface__`` producer, seen
as what the kernels need (address, shape, strides in items, dtype name, device, stream),
and outputs allocated by the input's own framework on its current stream.

One adapter class per framework; ``view(x, name)`` picks it. Every adapter answers the
same questions, so tally/_ops.py never asks which framework it holds.
"""

from __future__ import annotations

import sys

# dtype names the kernels serve (python/ext/dtypes.cuh); bool travels as uint8.
KERNEL_DTYPES = frozenset(
    "float16 bfloat16 float32 float64 int8 int16 int32 int64 uint8 uint16 uint32 uint64".split()
)


class ArrayView:
    """A CUDA array as the kernels see it; ``adapter`` allocates and reshapes like it."""

    __slots__ = ("obj", "adapter", "ptr", "shape", "strides", "dtype", "itemsize", "device", "_contiguous")

    def __init__(self, obj, adapter, ptr, shape, strides, dtype, itemsize, device, contiguous=None):
        self._contiguous = contiguous  # None: not known yet (is_contiguous() works it out)
        self.obj = obj
        self.adapter = adapter
        self.ptr = ptr
        self.shape = tuple(shape)
        self.strides = tuple(strides)  # in items
        self.dtype = dtype  # framework-neutral name: "float32", "bool", ...
        self.itemsize = itemsize
        self.device = device

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def kernel_dtype(self):
        return "uint8" if self.dtype == "bool" else self.dtype

    def is_contiguous(self):
        if self._contiguous is None:
            self._contiguous = self._strides_contiguous()
        return self._contiguous

    def _strides_contiguous(self):
        expected = 1
        for extent, stride in zip(reversed(self.shape), reversed(self.strides)):
            if extent != 1 and stride != expected:
                return False
            expected *= extent
        return True


def contiguous_strides(shape):
    """The strides, in items, of a C-contiguous array of this shape, as torch gives them."""
    if len(shape) <= 1:
        return (1,) * len(shape)
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= extent if extent > 1 else 1
    return tuple(reversed(strides))


def _fail_not_cuda(name, x, where):
    raise TypeError(f"tally: {name} must be a CUDA array (PyTorch, CuPy, JAX or __cuda_array_interface__); "
                    f"got {type(x).__module__}.{type(x).__qualname__}{where}")


class _Torch:
    name = "torch"

    def __init__(self):
        import torch

        self.torch = torch
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self._raw_stream = raw if raw is not None else (lambda d: torch.cuda.current_stream(d).cuda_stream)
        # torch.dtype -> (name, itemsize) and back: a call's fixed cost is Python's, so the
        # per-call work avoids building strings and device objects.
        self._names = {}
        self._dtypes = {}
        self._devices = {}
        # torch.dtype -> (name, kernel dtype name) of the dtypes the kernels serve (bool as
        # uint8), for quick_rows.
        self._served = {}
        self._mask_dtypes = (torch.bool, torch.uint8, torch.int8)

    def view(self, x, name):
        if not x.is_cuda:
            _fail_not_cuda(name, x, f" on {x.device}")
        known = self._names.get(x.dtype)
        if known is None:
            known = self._names[x.dtype] = (str(x.dtype)[6:], x.element_size())  # "torch.float32" -> "float32"
            kernel = "uint8" if known[0] == "bool" else known[0]
            if kernel in KERNEL_DTYPES:
                self._served[x.dtype] = (known[0], kernel)
        return ArrayView(x, self, x.data_ptr(), x.shape, x.stride(), known[0], known[1], x.get_device(),
                         x.is_contiguous())

    def quick_rows(self, x, dim):
        """The usual call, without a view: a contiguous CUDA tensor of a served dtype seen
        before, of 1 or 2 dimensions along its last (dim -1), or whole (dim None). Then
        (dtype name, kernel dtype name, address, rows, length, leading shape, device);
        else None, and the caller takes the general path (view(), _rows()), which also
        raises the errors. Offered by the adapters whose finish() and result() do
        nothing and that have empty_on() and stream_of() (the torch one). Each attribute of a tensor costs Python about 0.1 µs, a view 1.2 (the
        H200 machine's host, scripts/python_host_parts.py)."""
        served = self._served.get(x.dtype)
        if served is None or not x.is_cuda or not x.is_contiguous():
            return None
        shape = x.shape
        ndim = len(shape)
        if dim is None or (ndim == 1 and type(dim) is int and dim in (-1, 0)):
            rows, length, lead = 1, x.numel(), ()
        elif ndim == 2 and type(dim) is int and dim in (-1, 1):
            rows, length = shape
            lead = (rows,)
        else:
            return None
        return served[0], served[1], x.data_ptr(), rows, length, lead, x.get_device()

    def quick_select(self, x, mask):
        """select's usual call, without views: contiguous CUDA tensors of one shape on one
        device, x of a served dtype seen before, mask bool or uint8. Then (dtype name,
        itemsize, x's address, mask's address, items, device); else None (the general
        path, which raises the errors)."""
        served = self._served.get(x.dtype)
        if (served is None or type(mask) is not type(x) or mask.dtype not in self._mask_dtypes or not x.is_cuda
                or not mask.is_cuda or not x.is_contiguous() or not mask.is_contiguous() or x.shape != mask.shape):
            return None
        device = x.get_device()
        if mask.get_device() != device:
            return None
        return served[0], self._names[x.dtype][1], x.data_ptr(), mask.data_ptr(), x.numel(), device

    def ptr(self, out):
        return out.data_ptr()

    def stream(self, v):
        return self._raw_stream(v.device)

    def stream_of(self, device):
        return self._raw_stream(device)

    def empty(self, v, shape, dtype):
        return self.empty_on(v.device, shape, dtype)

    def empty_on(self, device, shape, dtype):
        torch_dtype = self._dtypes.get(dtype)
        if torch_dtype is None:
            torch_dtype = self._dtypes[dtype] = getattr(self.torch, dtype)
        torch_device = self._devices.get(device)
        if torch_device is None:
            torch_device = self._devices[device] = self.torch.device("cuda", device)
        # empty_strided with the contiguous strides: 2.0 µs a call on the H200 machine's
        # host, where torch.empty(shape, dtype=, device=) took 5.0 (its argument parsing).
        strides = (1,) if len(shape) == 1 else contiguous_strides(shape)  # 1-D: no call
        return self.torch.empty_strided(shape, strides, dtype=torch_dtype, device=torch_device)

    def contiguous_last(self, v, dim):
        x = v.obj if dim is None or dim == len(v.shape) - 1 else self.torch.movedim(v.obj, dim, -1)
        return self.view(x.contiguous(), "x")

    def copy(self, x):
        return x.clone()

    def result(self, out, dtype):
        return out

    def finish(self, v):
        pass


class _CuPy:
    name = "cupy"

    def __init__(self):
        import cupy

        self.cupy = cupy

    def view(self, x, name):
        itemsize = x.dtype.itemsize
        if any(s % itemsize for s in x.strides):
            raise ValueError(f"tally: {name}'s strides are not whole items")
        return ArrayView(x, self, x.data.ptr, x.shape, tuple(s // itemsize for s in x.strides), x.dtype.name,
                         itemsize, x.device.id)

    def quick_rows(self, x, dim):
        return None

    def quick_select(self, x, mask):
        return None

    def ptr(self, out):
        return out.data.ptr

    def stream(self, v):
        with self.cupy.cuda.Device(v.device):
            return self.cupy.cuda.get_current_stream().ptr

    def empty(self, v, shape, dtype):
        with self.cupy.cuda.Device(v.device):
            return self.cupy.empty(shape, dtype=dtype)

    def contiguous_last(self, v, dim):
        x = v.obj if dim is None or dim == len(v.shape) - 1 else self.cupy.moveaxis(v.obj, dim, -1)
        with self.cupy.cuda.Device(v.device):
            return self.view(self.cupy.ascontiguousarray(x), "x")

    def copy(self, x):
        return x.copy()

    def result(self, out, dtype):
        return out

    def finish(self, v):
        pass


class _Jax:
    """JAX arrays are immutable and JAX does not share its streams: tally waits for the
    input, writes fresh output buffers on the device's default stream and waits for that
    stream before it returns them (a synchronous call)."""

    name = "jax"

    def __init__(self):
        import jax
        import jax.numpy as jnp

        self.jax = jax
        self.jnp = jnp

    def view(self, x, name):
        devices = list(x.devices())
        if len(devices) != 1 or devices[0].platform != "gpu":
            _fail_not_cuda(name, x, f" on {devices}")
        x.block_until_ready()
        shape = x.shape
        strides, step = [], 1
        for extent in reversed(shape):
            strides.append(step)
            step *= extent
        dtype = str(x.dtype)
        return ArrayView(x, self, x.unsafe_buffer_pointer(), shape, tuple(reversed(strides)), dtype,
                         x.dtype.itemsize, devices[0].local_hardware_id)

    def quick_rows(self, x, dim):
        return None

    def quick_select(self, x, mask):
        return None

    def ptr(self, out):
        return out.unsafe_buffer_pointer()

    def stream(self, v):
        return 0

    def empty(self, v, shape, dtype):
        if dtype in ("int64", "uint64") and not self.jax.config.jax_enable_x64:
            # Without jax_enable_x64 JAX has no 64-bit arrays (jnp.empty would quietly give
            # int32): the kernels' 64-bit results go to pairs of uint32 and result() keeps
            # the low word, as JAX's own int32 argmax and sums would hold them.
            shape = tuple(shape) + (2,)
            dtype = "uint32"
        out = self.jax.device_put(self.jnp.empty(shape, dtype=dtype), list(v.obj.devices())[0])
        return out.block_until_ready()

    def result(self, out, dtype):
        if dtype in ("int64", "uint64") and not self.jax.config.jax_enable_x64:
            narrow = self.jnp.int32 if dtype == "int64" else self.jnp.uint32
            return self.jax.lax.bitcast_convert_type(out[..., 0], narrow)  # little-endian: the low word
        return out

    def contiguous_last(self, v, dim):
        x = v.obj if dim is None or dim == len(v.shape) - 1 else self.jnp.moveaxis(v.obj, dim, -1)
        return self.view(x, "x")

    def copy(self, x):
        return self.jnp.array(x, copy=True)

    def finish(self, v):
        from . import _tally

        _tally.synchronize(v.device, 0)


class _Interface:
    """Any other producer of __cuda_array_interface__ (Numba, ...): outputs are Numba
    device arrays (Numba must be installed); work is ordered on the producer's stream."""

    name = "cuda_array_interface"

    _typestr = {"f2": "float16", "f4": "float32", "f8": "float64", "i1": "int8", "i2": "int16", "i4": "int32",
                "i8": "int64", "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64", "b1": "bool"}

    def view(self, x, name):
        cai = x.__cuda_array_interface__
        typestr = cai["typestr"]
        dtype = self._typestr.get(typestr[1:])
        if dtype is None:
            raise TypeError(f"tally: {name} has an unsupported dtype {typestr!r}")
        itemsize = int(typestr[2:])
        shape = tuple(cai["shape"])
        if cai.get("strides") is None:
            strides, step = [], 1
            for extent in reversed(shape):
                strides.append(step)
                step *= extent
            strides = tuple(reversed(strides))
        else:
            strides = tuple(s // itemsize for s in cai["strides"])
        from . import _tally

        v = ArrayView(x, self, cai["data"][0], shape, strides, dtype, itemsize, _tally.device_of(cai["data"][0]))
        return v

    def quick_rows(self, x, dim):
        return None

    def quick_select(self, x, mask):
        return None

    def ptr(self, out):
        return out.__cuda_array_interface__["data"][0]

    def stream(self, v):
        stream = v.obj.__cuda_array_interface__.get("stream")
        return 0 if stream in (None, 1, 2) else stream  # 1, 2: the legacy / per-thread default

    def empty(self, v, shape, dtype):
        from numba import cuda

        return cuda.device_array(shape, dtype=dtype)

    def contiguous_last(self, v, dim):
        raise ValueError("tally: an array of __cuda_array_interface__ must have contiguous rows "
                         "(dim = the last, unit stride); copy it first")

    def copy(self, x):
        return x.copy_to_device(x)

    def result(self, out, dtype):
        return out

    def finish(self, v):
        pass


_adapters = {}


def _adapter(kind):
    a = _adapters.get(kind)
    if a is None:
        a = _adapters[kind] = {"torch": _Torch, "cupy": _CuPy, "jax": _Jax, "cai": _Interface}[kind]()
    return a


# The adapter of each array type seen (torch, CuPy and JAX types only: whether an object
# has __cuda_array_interface__ is asked of each one).
_adapter_of_type = {}


def adapter_of(x):
    """The adapter of x's type once view() has seen one (None before: view() finds it)."""
    return _adapter_of_type.get(type(x))


def view(x, name):
    """The ArrayView of x; TypeError when x is not a CUDA array of a known kind."""
    adapter = _adapter_of_type.get(type(x))
    if adapter is not None:
        return adapter.view(x, name)
    module = type(x).__module__
    if module.startswith("torch") and "torch" in sys.modules:
        kind = "torch"
    elif module.startswith("cupy"):
        kind = "cupy"
    elif module.startswith(("jax", "jaxlib")) and hasattr(x, "unsafe_buffer_pointer"):
        kind = "jax"
    elif hasattr(x, "__cuda_array_interface__"):
        return _adapter("cai").view(x, name)
    else:
        _fail_not_cuda(name, x, "")
    adapter = _adapter_of_type[type(x)] = _adapter(kind)
    return adapter.view(x, name)
