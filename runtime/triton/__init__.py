"""Triton kernels of the runtime.

Importing this package is free: triton is imported only when a kernel is first built
(``schemac.runtime.triton.bitmask.kernel()``), so CPU-only installs and batches without
constrained requests never pay for it.
"""
