"""The engine's own headless EGL context, and choosing an EGL device."""

from __future__ import annotations

import subprocess
import sys

import pytest

import hypergl

pytestmark = pytest.mark.gl


def test_the_engine_makes_a_core_context_on_an_egl_device():
    ctx = hypergl.context()
    try:
        egl = ctx._host.egl
        assert egl.platform in ("device", "surfaceless", "default display")
        assert (egl.major, egl.minor) in ((4, 6), (4, 5), (4, 4), (4, 3), (0, 0))
        assert ctx.capabilities.core_profile and ctx.capabilities.at_least(4, 3)
        assert isinstance(egl.robust_access, bool)  # requested where EGL offers it
        if "llvmpipe" in ctx.capabilities.renderer:  # grants robust access (no reset strategy)
            assert egl.robust_access
    finally:
        ctx.close()
    assert egl.destroyed


def test_hypergl_egl_robust_0_asks_for_a_plain_context(monkeypatch):
    monkeypatch.setenv("HYPERGL_EGL_ROBUST", "0")
    ctx = hypergl.context()
    try:
        assert ctx._host.egl.robust_access is False
    finally:
        ctx.close()


def test_devices_lists_what_each_device_says_about_itself():
    devices = hypergl.devices()
    assert devices, "EGL lists no device here"
    for i, device in enumerate(devices):
        assert device.egl_index == i
        assert device.name and str(device)
        assert all(name.startswith("EGL_") for name in device.extensions)
    if any(d.software for d in devices):  # Mesa's llvmpipe
        assert "EGL_MESA_device_software" in next(d for d in devices if d.software).extensions


def test_device_index_opens_that_device_and_probe_takes_it_too():
    ctx = hypergl.context(device_index=0)
    try:
        assert ctx._host.egl.device_index == hypergl.devices()[0].egl_index
        fb = ctx.framebuffer((2, 2))
        cmd = ctx.command_buffer()
        cmd.bind_framebuffer(fb)
        cmd.clear(color=(0, 1, 0, 1))
        cmd.end()
        cmd.submit()
        assert fb.read()[0, 0].tolist() == [0, 255, 0, 255]
    finally:
        ctx.close()
    assert hypergl.probe(device_index=0).at_least(4, 3)


def test_an_index_that_does_not_exist_names_itself_and_what_exists():
    count = len(hypergl.devices())
    with pytest.raises(hypergl.ContextError, match=f"device_index={count + 7} does not exist.*#0"):
        hypergl.context(device_index=count + 7)


@pytest.mark.parametrize(
    ("index", "error", "match"),
    [(-1, ValueError, "-1"), ("0", TypeError, "'0'"), (True, TypeError, "True"),
     (1.0, TypeError, "1.0")],
)  # fmt: skip
def test_bad_device_indices_are_rejected(index, error, match):
    with pytest.raises(error, match=match):
        hypergl.context(device_index=index)


def test_device_index_needs_a_headless_gl_context():
    with pytest.raises(ValueError, match="device='trace'"):
        hypergl.context("trace", device_index=0)


def test_cuda_visible_devices_without_cuda_ids_counts_egl_devices(monkeypatch):
    # Mesa reports no CUDA ids: the index is then the position in EGL's list.
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3")
    if any(d.cuda_device is not None for d in hypergl.devices()):
        pytest.skip("this machine's EGL maps devices to CUDA ids")
    assert [d.index for d in hypergl.devices()] == list(range(len(hypergl.devices())))
    hypergl.context(device_index=0).close()
    hypergl.context().close()


def test_no_egl_library_is_a_clear_context_error(monkeypatch, tmp_path):
    missing = tmp_path / "no-libEGL.so.1"
    monkeypatch.setenv("HYPERGL_EGL_LIBRARY", str(missing))
    with pytest.raises(hypergl.ContextError, match=r"could not load the EGL library.*apt"):
        hypergl.devices()
    with pytest.raises(hypergl.ContextError, match="device_index=0: no EGL devices"):
        hypergl.context(device_index=0)
    # hypergl.context() and probe() then try the hidden-window fallback: see
    # test_hidden_window_fallback.py (and test_platform_support.py without a display).


def test_a_library_that_is_not_egl_is_named(monkeypatch):
    monkeypatch.setenv("HYPERGL_EGL_LIBRARY", "libm.so.6")
    with pytest.raises(hypergl.ContextError, match=r"libm\.so\.6 has no eglGetProcAddress"):
        hypergl.devices()


def run_python(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_no_python_gl_library_is_imported_for_a_headless_context():
    out = run_python(
        "import sys, hypergl\n"
        "ctx = hypergl.context(); fb = ctx.framebuffer((2, 2))\n"
        "c = ctx.command_buffer(); c.bind_framebuffer(fb); c.clear(color=(1, 0, 0, 1)); c.end()\n"
        "c.submit(); print(fb.read()[0, 0].tolist())\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('glcontext', 'moderngl', 'OpenGL', 'glfw', 'sdl2')))\n"
    )
    assert out.split("\n")[:2] == ["[255, 0, 0, 255]", "[]"]


def test_another_librarys_current_context_is_put_back_after_each_call():
    pytest.importorskip("moderngl")
    # moderngl never re-binds its context: a hypergl call must leave it current.
    out = run_python(
        "import moderngl, hypergl\n"
        "mgl = moderngl.create_standalone_context(backend='egl')\n"
        "ctx = hypergl.context(); fb = ctx.framebuffer((2, 2))\n"
        "c = ctx.command_buffer(); c.bind_framebuffer(fb); c.clear(color=(0, 0, 1, 1)); c.end()\n"
        "c.submit(); fb.read()\n"
        "target = mgl.simple_framebuffer((2, 2)); target.use(); mgl.clear(0.0, 1.0, 0.0, 1.0)\n"
        "print(list(target.read(components=4)[:4]), fb.read()[0, 0].tolist())\n"
    )
    assert out.strip() == "[0, 255, 0, 255] [0, 0, 255, 255]"


def test_info_says_where_a_context_renders():
    with hypergl.context() as ctx:
        info = ctx.info
        assert info["device"] == "gl" and info["platform"] == "egl"
        assert info["egl_platform"] == ctx._host.egl.platform
        assert info["renderer"] == ctx.capabilities.renderer and info["version"]
    assert hypergl.context("trace").info == {"device": "trace", "platform": None}
