"""Everything kept only so that code written for py_gpu 0.0.1 keeps running, in one place.

* the 0.0.1 module names ``py_gpu.raster``, ``py_gpu.numpy_raster`` and ``py_gpu.moderngl_backend``
  (registered here as lazy modules: importing one imports its backend, nothing earlier);
* the 0.0.1 class names ``CPURasterBackend``, ``NumpyRasterBackend``, ``NumbaRasterBackend`` and
  ``ModernGLRasterBackend`` (top level: ``None`` when their dependency is missing, as in 0.0.1);
* the backend aliases ``"opengl"`` and ``"gpu"``, ``clamp_channel`` and ``detect_gpu_packages``.

New code should use the names in :mod:`py_gpu` and :mod:`py_gpu.backends` instead.
"""

from __future__ import annotations

import importlib
import sys
import types
from importlib.util import find_spec
from typing import Any

#: Names accepted by py_gpu 0.0.1 that mean a specific backend.
ALIASES = {"opengl": "moderngl", "gpu": "moderngl"}

#: 0.0.1 class name -> (module, class) of today's backend.
CLASSES = {
    "CPURasterBackend": ("py_gpu.backends.cpu", "CpuBackend"),
    "NumpyRasterBackend": ("py_gpu.backends.numpy_backend", "NumpyBackend"),
    "NumbaRasterBackend": ("py_gpu.backends.numba_backend", "NumbaBackend"),
    "ModernGLRasterBackend": ("py_gpu.backends.moderngl_backend", "ModernGLBackend"),
}

#: 0.0.1 module name -> the class names it offered (old and new).
MODULES = {
    "py_gpu.raster": ("CPURasterBackend", "CpuBackend"),
    "py_gpu.numpy_raster": ("NumpyRasterBackend", "NumpyBackend"),
    "py_gpu.moderngl_backend": ("ModernGLRasterBackend", "ModernGLBackend"),
}

#: (module name, label) pairs reported by ``detect_gpu_packages``.
CANDIDATES = (
    ("wgpu", "WebGPU/wgpu"),
    ("moderngl", "OpenGL/ModernGL"),
    ("OpenGL", "OpenGL/PyOpenGL"),
    ("vulkan", "Vulkan"),
    ("cupy", "CUDA/CuPy"),
    ("numba", "CPU/GPU Numba"),
    ("torch", "PyTorch"),
)


def resolve_alias(name: str) -> str:
    """The backend a 0.0.1 alias means (other names unchanged)."""
    return ALIASES.get(name, name)


def legacy_class(name: str, *, optional: bool) -> Any:
    """The backend class behind 0.0.1 class name ``name``.

    ``optional``: ``None`` instead of ImportError when its dependency is missing (0.0.1's
    top-level names behaved so).
    """
    module_name, attr = CLASSES[name]
    try:
        return getattr(importlib.import_module(module_name), attr)
    except ImportError:
        if optional:
            return None
        raise


def clamp_channel(value: int | float) -> int:
    """Round and clamp one channel to 0..255."""
    return max(0, min(255, round(value)))


def detect_gpu_packages() -> tuple[str, ...]:
    """Labels of optional GPU or acceleration packages visible to Python."""

    def installed(module: str) -> bool:
        try:
            return find_spec(module) is not None
        except (ImportError, ValueError):
            return False

    return tuple(label for module, label in CANDIDATES if installed(module))


def _legacy_module(name: str, names: tuple[str, ...]) -> types.ModuleType:
    module = types.ModuleType(name, f"py_gpu 0.0.1 module name; see {__name__}.")
    current = {old: CLASSES[old] for old in names if old in CLASSES}
    for new in names:
        if new not in CLASSES:
            current[new] = CLASSES[next(iter(current))]

    def __getattr__(attr: str) -> Any:
        if attr not in current:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}")
        module_name, cls = current[attr]
        return getattr(importlib.import_module(module_name), cls)

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    module.__all__ = list(names)
    return module


def install_legacy_modules() -> None:
    """Make ``import py_gpu.raster`` (and the other 0.0.1 module names) work, lazily."""
    for name, names in MODULES.items():
        sys.modules.setdefault(name, _legacy_module(name, names))
