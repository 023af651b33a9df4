"""py-gpu: backend-agnostic frame buffers, batch contracts and rasterizers.

Backends are found through the ``py_gpu.backends`` entry-point group (see
:mod:`py_gpu.backends`); every one follows :mod:`py_gpu.convention`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import compat, convention, errors
from .backends import (
    BackendCapabilities,
    BackendStatus,
    BatchHandle,
    RasterBackend,
    available_backends,
    installed_backends,
    select_backend,
)
from .backends.cpu import CpuBackend
from .buffers import DepthBuffer, FrameBuffer
from .compat import detect_gpu_packages
from .detect import detect
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

__version__ = "0.2.0"

compat.install_legacy_modules()

if TYPE_CHECKING:  # the lazy exports below, as type checkers should see them
    from .backends.moderngl_backend import ModernGLBackend as ModernGLRasterBackend
    from .backends.numba_backend import NumbaBackend as NumbaRasterBackend
    from .backends.numpy_backend import NumpyBackend as NumpyRasterBackend
    from .camera import Camera as Camera
    from .camera import look_at as look_at
    from .camera import orthographic as orthographic
    from .camera import perspective as perspective
    from .mesh import DirectionalLight as DirectionalLight
    from .mesh import Instances as Instances
    from .mesh import Material as Material
    from .mesh import MeshBatch as MeshBatch
    from .mesh import MeshHandle as MeshHandle
    from .mesh import MeshRenderer as MeshRenderer
    from .mesh import RenderResult as RenderResult
    from .mesh import TextureAtlas as TextureAtlas

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

    if name in compat.CLASSES:  # resolved lazily: importing py_gpu never imports NumPy
        value = compat.legacy_class(name, optional=True)
        globals()[name] = value
        return value
    if f"py_gpu.{name}" in compat.MODULES:
        return importlib.import_module(f"py_gpu.{name}")
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
    "compat",
    "convention",
    "detect",
    "detect_gpu_packages",
    "errors",
    "installed_backends",
    "select_backend",
    *_MESH,
]
