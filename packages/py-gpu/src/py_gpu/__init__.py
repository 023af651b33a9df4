"""py-gpu: backend-agnostic frame buffers, batch contracts and rasterizers.

Backends are found through the ``py_gpu.backends`` entry-point group (see
:mod:`py_gpu.backends`); every one follows :mod:`py_gpu.convention`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import convention, errors
from .backends import (
    BackendCapabilities,
    BackendStatus,
    BatchHandle,
    RasterBackend,
    available_backends,
    installed_backends,
    select_backend,
)
from .backends.cpu import CpuBackend, CPURasterBackend
from .buffers import DepthBuffer, FrameBuffer
from .detect import detect, detect_gpu_packages
from .errors import (
    BackendUnavailableError,
    InvalidColorError,
    InvalidGeometryError,
    InvalidSizeError,
    PyGpuError,
    TargetSizeError,
    UnknownBackendError,
)
from .geometry import RasterBatch, ScreenTriangle, ScreenVertex

__version__ = "0.1.0"

if TYPE_CHECKING:  # the lazy exports below, as type checkers should see them
    from .backends.moderngl_backend import ModernGLBackend as ModernGLRasterBackend
    from .backends.numba_backend import NumbaBackend as NumbaRasterBackend
    from .backends.numpy_backend import NumpyBackend as NumpyRasterBackend
    from .mesh import Camera as Camera
    from .mesh import DirectionalLight as DirectionalLight
    from .mesh import Instances as Instances
    from .mesh import Material as Material
    from .mesh import MeshBatch as MeshBatch
    from .mesh import MeshHandle as MeshHandle
    from .mesh import MeshRenderer as MeshRenderer
    from .mesh import RenderResult as RenderResult
    from .mesh import TextureAtlas as TextureAtlas
    from .mesh import look_at as look_at
    from .mesh import orthographic as orthographic
    from .mesh import perspective as perspective

# Optional classes, importable from the top level as in py_gpu 0.0.1 (None when their
# dependency is missing); resolved lazily so importing py_gpu never imports NumPy or ModernGL.
_OPTIONAL = {
    "NumpyRasterBackend": ("py_gpu.backends.numpy_backend", "NumpyBackend"),
    "ModernGLRasterBackend": ("py_gpu.backends.moderngl_backend", "ModernGLBackend"),
    "NumbaRasterBackend": ("py_gpu.backends.numba_backend", "NumbaBackend"),
}
_MESH = (
    "Camera",
    "DirectionalLight",
    "Instances",
    "Material",
    "MeshBatch",
    "MeshHandle",
    "MeshRenderer",
    "RenderResult",
    "TextureAtlas",
    "look_at",
    "orthographic",
    "perspective",
)


def __getattr__(name: str) -> Any:
    import importlib

    if name in _OPTIONAL:
        module_name, attr = _OPTIONAL[name]
        try:
            value = getattr(importlib.import_module(module_name), attr)
        except ImportError:
            value = None
        globals()[name] = value
        return value
    if name in _MESH:
        value = getattr(importlib.import_module("py_gpu.mesh"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'py_gpu' has no attribute {name!r}")


__all__ = [
    "BackendCapabilities",
    "BackendStatus",
    "BackendUnavailableError",
    "BatchHandle",
    "CPURasterBackend",
    "CpuBackend",
    "DepthBuffer",
    "FrameBuffer",
    "InvalidColorError",
    "InvalidGeometryError",
    "InvalidSizeError",
    "ModernGLRasterBackend",
    "NumbaRasterBackend",
    "NumpyRasterBackend",
    "PyGpuError",
    "RasterBackend",
    "RasterBatch",
    "ScreenTriangle",
    "ScreenVertex",
    "TargetSizeError",
    "UnknownBackendError",
    "available_backends",
    "convention",
    "detect",
    "detect_gpu_packages",
    "errors",
    "installed_backends",
    "select_backend",
    *_MESH,
]
