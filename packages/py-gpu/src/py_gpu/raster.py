"""py_gpu 0.0.1 module name for the reference rasterizer (see :mod:`py_gpu.backends.cpu`)."""

from .backends.cpu import CpuBackend, CPURasterBackend

__all__ = ["CPURasterBackend", "CpuBackend"]
