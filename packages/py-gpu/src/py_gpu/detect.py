"""Which optional GPU / acceleration stacks are installed (nothing is imported or started)."""

from __future__ import annotations

from importlib.util import find_spec

#: API -> the Python modules that provide it.
APIS = {
    "WebGPU": ("wgpu",),
    "OpenGL": ("moderngl", "OpenGL", "glcontext"),
    "Vulkan": ("vulkan", "vulkan_platform", "kp"),
    "CuPy": ("cupy",),
    "Numba": ("numba",),
    "PyTorch": ("torch",),
}


def _installed(module: str) -> bool:
    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def detect() -> dict[str, tuple[str, ...]]:
    """For each of WebGPU, OpenGL, Vulkan, CuPy, Numba and PyTorch, the installed modules that
    provide it (an empty tuple when none is installed)."""
    return {api: tuple(m for m in modules if _installed(m)) for api, modules in APIS.items()}
