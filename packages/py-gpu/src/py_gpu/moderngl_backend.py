"""py_gpu 0.0.1 module name for the ModernGL backend (see
:mod:`py_gpu.backends.moderngl_backend`)."""

from .backends.moderngl_backend import ModernGLBackend, ModernGLRasterBackend

__all__ = ["ModernGLBackend", "ModernGLRasterBackend"]
