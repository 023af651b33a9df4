"""Backend discovery, selection, fallback, the seed's README example and bad render input."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import py_gpu
from py_gpu import RasterBatch, ScreenTriangle, ScreenVertex, backends
from py_gpu.errors import (
    BackendUnavailableError,
    InvalidColorError,
    InvalidSizeError,
    TargetSizeError,
    UnknownBackendError,
)

TRIANGLE = RasterBatch(
    [ScreenTriangle(ScreenVertex(8, 2, 1.0), ScreenVertex(2, 12, 1.0), ScreenVertex(14, 12, 1.0))]
)


def test_builtins_are_entry_points():
    installed = py_gpu.installed_backends()
    for name in ("cpu", "numpy", "numba", "moderngl", "wgpu"):
        assert name in installed
    eps = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="py_gpu.backends")}
    assert eps["cpu"] == "py_gpu.backends.cpu:CpuBackend"


def test_select_by_name_and_aliases():
    cpu = py_gpu.select_backend("cpu")
    assert cpu.name == "cpu" and cpu is py_gpu.select_backend("CPU")
    assert isinstance(cpu, py_gpu.RasterBackend)
    assert cpu.capabilities.name == "CPU screen-space rasterizer"
    assert not cpu.capabilities.accelerated


def test_unknown_backend_lists_installed():
    with pytest.raises(UnknownBackendError, match=r"installed backends: .*cpu.*numpy") as info:
        py_gpu.select_backend("vulkan-magic")
    assert isinstance(info.value, LookupError) and isinstance(info.value, RuntimeError)
    with pytest.raises(UnknownBackendError):
        py_gpu.select_backend(3)


def test_available_backends_report_reasons():
    status = py_gpu.available_backends()
    assert status["cpu"].available and status["cpu"].reason is None
    assert status["numpy"].available
    for entry in status.values():
        assert entry.available or entry.reason, entry
    auto = py_gpu.select_backend("auto")
    first = next(name for name in backends.auto_order() if status[name].available)
    assert auto.name == first


def test_auto_order_follows_declared_priorities():
    order = backends.auto_order()
    assert set(order) == set(py_gpu.installed_backends())
    priorities = [backends.declared_capabilities(name).priority for name in order]
    assert priorities == sorted(priorities, reverse=True)
    assert order.index("numba") < order.index("numpy") < order.index("cpu")
    for name in order:
        assert backends.declared_capabilities(name).api in backends.APIS, name


@pytest.fixture
def fake_registry(monkeypatch):
    """Replace the entry points with a controlled set (restored afterwards)."""

    def install(mapping):
        eps = {
            name: importlib.metadata.EntryPoint(name, value, backends.ENTRY_POINT_GROUP)
            for name, value in mapping.items()
        }
        monkeypatch.setattr(backends, "_entry_points", lambda: eps)
        monkeypatch.setattr(backends, "_instances", {})
        monkeypatch.setattr(backends, "_failures", {})

    return install


def _caps(priority):
    return backends.BackendCapabilities("test", accelerated=False, priority=priority)


class _RefusingBackend:
    name = "refusing"
    capabilities = _caps(100)

    @classmethod
    def probe(cls):
        return "no device here"


class _ExplodingBackend:
    capabilities = _caps(200)

    def __init__(self):
        raise RuntimeError("XOpenDisplay: cannot open display")


def test_auto_falls_back_with_reasons(fake_registry):
    # Entry points name a module by a dotted identifier; this file's own name may
    # not be one (pytest's importlib mode names it after its path).
    here = "py_gpu_tests_backends"
    sys.modules[here] = sys.modules[__name__]
    fake_registry(
        {
            "plugin": "plugin_does_not_exist.module:PluginBackend",
            "moderngl": f"{here}:_ExplodingBackend",
            "numba": f"{here}:_RefusingBackend",
            "numpy": "py_gpu.backends.numpy_backend:NumpyBackend",
            "cpu": "py_gpu.backends.cpu:CpuBackend",
        }
    )
    assert backends.auto_order() == ("moderngl", "numba", "numpy", "cpu", "plugin")
    assert py_gpu.select_backend("auto").name == "numpy"
    status = py_gpu.available_backends()
    assert "ModuleNotFoundError" in status["plugin"].reason
    assert "cannot open display" in status["moderngl"].reason
    assert status["numba"].reason == "no device here"
    with pytest.raises(BackendUnavailableError, match="no device here"):
        py_gpu.select_backend("numba")
    with pytest.raises(BackendUnavailableError, match="cannot open display"):
        py_gpu.select_backend("opengl")  # 0.0.1 alias


def test_auto_reaches_cpu(fake_registry):
    fake_registry({"numpy": "nowhere:Nothing", "cpu": "py_gpu.backends.cpu:CpuBackend"})
    assert py_gpu.select_backend("auto").name == "cpu"
    status = py_gpu.available_backends()
    assert "ModuleNotFoundError" in status["numpy"].reason


def test_auto_with_nothing_installed_says_so(fake_registry):
    fake_registry({})
    with pytest.raises(BackendUnavailableError, match="none is installed"):
        py_gpu.select_backend("auto")


def test_detect_reports_apis():
    pytest.importorskip("moderngl", reason="moderngl is not installed (no cp313t wheel)")
    found = py_gpu.detect()
    assert set(found) == {"WebGPU", "OpenGL", "Vulkan", "CuPy", "Numba", "PyTorch"}
    assert "moderngl" in found["OpenGL"]
    assert "OpenGL/ModernGL" in py_gpu.detect_gpu_packages()


def test_seed_readme_example_runs_verbatim(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from py_gpu import RasterBatch, ScreenTriangle, ScreenVertex, select_backend

    batch = RasterBatch(
        [
            ScreenTriangle(
                ScreenVertex(80, 20, 1.0),
                ScreenVertex(20, 120, 1.0),
                ScreenVertex(140, 120, 1.0),
                (220, 80, 40),
            )
        ]
    )

    backend = select_backend("cpu")
    frame = backend.render(batch, width=160, height=140, background=(8, 10, 14))
    frame.to_png("triangle.png")
    from PIL import Image

    with Image.open(tmp_path / "triangle.png") as image:
        assert image.getpixel((80, 100)) == (220, 80, 40)
        assert image.getpixel((5, 5)) == (8, 10, 14)
    assert select_backend("auto").render(batch, width=160, height=140).get_pixel(80, 100) == (
        220,
        80,
        40,
    )


def test_seed_module_names_still_import():
    from py_gpu.backends import BackendCapabilities as Caps  # noqa: F401
    from py_gpu.moderngl_backend import ModernGLRasterBackend
    from py_gpu.numpy_raster import NumpyRasterBackend
    from py_gpu.raster import CPURasterBackend

    assert CPURasterBackend().render(TRIANGLE, 16, 16).get_pixel(8, 9) == (255, 255, 255)
    assert NumpyRasterBackend is py_gpu.NumpyRasterBackend
    assert ModernGLRasterBackend is py_gpu.ModernGLRasterBackend


def test_render_target_and_bad_input(backend):
    target = py_gpu.FrameBuffer.new(16, 16, (1, 1, 1))
    frame = backend.render(TRIANGLE, 16, 16, background=(3, 4, 5), target=target)
    assert frame is target and target.get_pixel(0, 0) == (3, 4, 5)
    assert target.get_pixel(8, 9) == (255, 255, 255)
    with pytest.raises(TargetSizeError, match="16x16"):
        backend.render(TRIANGLE, 16, 15, target=target)
    for size in [(0, 16), (16, -3), (1.5, 2)]:
        with pytest.raises(InvalidSizeError):
            backend.render(TRIANGLE, *size)
    with pytest.raises(InvalidColorError):
        backend.render(TRIANGLE, 16, 16, background=(0, 0, 300))
    with pytest.raises(TypeError):
        backend.render([TRIANGLE], 16, 16)
    empty = backend.render(RasterBatch([]), 4, 3, background=(7, 7, 7))
    assert empty.pixels == bytearray(bytes((7, 7, 7)) * 12)


@pytest.mark.gl
def test_moderngl_persistent_buffers(make_batch):
    gl = py_gpu.select_backend("moderngl")
    small = make_batch(np.random.default_rng(1), 10, 64, 48)
    big = make_batch(np.random.default_rng(2), 5000, 64, 48)
    gl.render(small, 64, 48)
    uploads, allocations = gl.stats["uploads"], gl.stats["allocations"]
    for _ in range(3):
        gl.render(small, 64, 48)
    assert gl.stats["uploads"] == uploads  # the same batch is not uploaded again
    gl.render(big, 64, 48)
    gl.render(small, 64, 48)
    gl.render(big, 64, 48)
    assert gl.stats["allocations"] <= allocations + 1  # grown once, never shrunk
    handle = gl.upload(big)
    uploads = gl.stats["uploads"]
    expected = py_gpu.select_backend("cpu").render(big, 64, 48).to_numpy()
    for _ in range(3):
        got = gl.render(handle, 64, 48).to_numpy()
    assert gl.stats["uploads"] == uploads
    assert np.mean((got == expected).all(axis=2)) >= 0.999
    handle.release()
    with pytest.raises(ValueError, match="released"):
        gl.render(handle, 64, 48)


@pytest.mark.gl
def test_moderngl_runs_headless_without_display(tmp_path):
    script = textwrap.dedent(
        """
        import py_gpu
        backend = py_gpu.select_backend("auto")
        assert backend.capabilities.api == "opengl", backend.name
        batch = py_gpu.RasterBatch.from_arrays([[(0, 0, 1), (8, 0, 1), (0, 8, 1)]], [(9, 9, 9)])
        print(backend.name, py_gpu.select_backend("moderngl").render(batch, 8, 8).get_pixel(1, 1))
        """
    )
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("(9, 9, 9)")


def test_numpy_backends_without_numpy_say_what_to_install():
    # A fresh interpreter where `import numpy` fails as it does when NumPy is not installed.
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "from py_gpu import select_backend\n"
        "from py_gpu.errors import BackendUnavailableError\n"
        "for name in ('numpy', 'numba'):\n"
        "    try:\n"
        "        select_backend(name)\n"
        "    except BackendUnavailableError as exc:\n"
        "        print(exc)\n"
        "print(select_backend('auto').name)\n"
    )
    command = [sys.executable, "-c", code]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    for name, line in zip(("numpy", "numba"), lines[:2], strict=True):
        assert f"backend {name!r} cannot start" in line
        assert "numpy" in line
        assert 'install it: pip install "py-gpu[numeric]"' in line
    assert lines[2] == "cpu"
