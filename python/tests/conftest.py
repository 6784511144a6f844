"""Shared pytest setup for tally's Python tests.

Tests that need a GPU carry the ``cuda`` marker and are skipped, with a reason, when their
framework is missing or sees no CUDA device (``pytest -m "not cuda"`` leaves them out
altogether). ``import tally`` itself never needs a GPU.
"""

import os

# JAX takes 75% of the GPU's memory at its first use unless told otherwise; the torch and
# CuPy tests of the same process need theirs.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda: needs a CUDA GPU (skipped when none is visible)")
