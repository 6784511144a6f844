"""tally for Python: sorted, deterministic top-k, reductions, arg-extrema and masked
selection over CUDA arrays of PyTorch, CuPy, JAX (and any __cuda_array_interface__
producer), computed by tally's CUDA kernels.

Outputs are arrays of the input's framework, allocated by it, and the work is queued on
its current stream (PyTorch, CuPy; see docs/python.md for JAX). Semantics are the C++
library's: NaN is greater than every number, ties go to the lower index.
"""

from ._tally import __version__
from ._ops import MAX_TOP_K_ROWS, argmax, argmin, max, min, select, sum, top_k

__all__ = ["top_k", "sum", "max", "min", "argmax", "argmin", "select", "MAX_TOP_K_ROWS", "__version__"]
