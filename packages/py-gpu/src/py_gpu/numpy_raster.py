"""py_gpu 0.0.1 module name for the NumPy rasterizer (see :mod:`py_gpu.backends.numpy_backend`)."""

from .backends.numpy_backend import NumpyBackend, NumpyRasterBackend

__all__ = ["NumpyBackend", "NumpyRasterBackend"]
