"""Fixtures for the py_gpu tests: the backends that work on this machine."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import numpy as np
import pytest

import py_gpu
from py_gpu.geometry import RasterBatch

# py3dengine 0.0.4 imports on Linux only with the Windows-only wintypes names set (test set-up).
sys.path.insert(0, str(Path(__file__).resolve().parent))  # py3d_scenes, py3d_wintypes_shim
import py3d_wintypes_shim  # noqa: F401


def _api(status) -> str:
    return status.capabilities.api if status.capabilities is not None else "unknown"


#: Backends that must reproduce the CPU reference bit for bit: those that declare the cpu api.
EXACT_BACKENDS = {n for n, s in py_gpu.available_backends().items() if _api(s) == "cpu"}


def _backend_params():
    params = []
    for name, status in py_gpu.available_backends().items():
        # Backends that declare OpenGL carry the ``gl`` marker (skipped without EGL).
        marks = [pytest.mark.gl] if _api(status) == "opengl" else []
        if not status.available:
            marks.append(pytest.mark.skip(reason=f"backend {name} unavailable: {status.reason}"))
        params.append(pytest.param(name, marks=marks, id=name))
    return params


BACKEND_PARAMS = _backend_params()


@functools.cache
def gl_unavailable_reason() -> str | None:
    """None when a headless EGL context can be made here (glcontext), else why not."""
    try:
        import glcontext

        # Through glcontext's backend, which finds libGL.so.1 and libEGL.so.1 (its bare
        # egl.create_context opens libGL.so, which only the -dev packages install).
        context = glcontext.get_backend_by_name("egl")(mode="standalone", glversion=330)
    except Exception as exc:
        return f"no headless EGL context on this machine: {exc}"
    context.__enter__()  # unbind before releasing: a current EGL context breaks GLX windows
    context.__exit__(None, None, None)
    context.release()
    return None


HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    # Only py_gpu's own tests: this hook sees every item of the session, and the
    # other distributions' GL tests need no glcontext.
    for item in items:
        if HERE not in Path(str(item.path)).resolve().parents:
            continue
        if item.get_closest_marker("gl") is not None and gl_unavailable_reason():
            item.add_marker(pytest.mark.skip(reason=gl_unavailable_reason()))


@pytest.fixture(params=BACKEND_PARAMS)
def backend(request):
    """Every installed backend that starts here (plugins join automatically)."""
    return py_gpu.select_backend(request.param)


@pytest.fixture(scope="session")
def reference():
    return py_gpu.select_backend("cpu")


def random_batch(
    rng: np.random.Generator,
    count: int,
    width: int,
    height: int,
    *,
    radius: float = 12.0,
    grid: float | None = None,
) -> RasterBatch:
    """Seeded random triangles: centres uniform over the frame, depth 0.2..8."""
    centres = rng.uniform([0, 0], [width, height], (count, 1, 2))
    xy = centres + rng.uniform(-radius, radius, (count, 3, 2))
    if grid is not None:
        xy = np.round(xy / grid) * grid
    z = rng.uniform(0.2, 8.0, (count, 3, 1))
    colors = rng.integers(0, 256, (count, 3))
    return RasterBatch.from_arrays(np.concatenate([xy, z], axis=2), colors)


@pytest.fixture
def make_batch():
    """``make_batch(rng, count, width, height, radius=, grid=)`` -> RasterBatch."""
    return random_batch


@pytest.fixture
def exact_backends():
    return EXACT_BACKENDS
