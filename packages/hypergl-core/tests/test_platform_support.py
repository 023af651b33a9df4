"""A driver or platform without OpenGL 4.3 gets an error that says what works instead."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from hypergl import platform_support

ATTEMPT = (
    "import hypergl\n"
    "try:\n"
    "    hypergl.context()\n"
    "except hypergl.ContextError as error:\n"
    "    print('ContextError:', error)\n"
)


def context_error(**env: str) -> str:
    # No display either: else the hidden-window fallback would make a context.
    base = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    result = subprocess.run([sys.executable, "-c", ATTEMPT], capture_output=True, text=True,
                            timeout=120, env={**base, **env})  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.gl
def test_a_driver_below_4_3_is_refused_with_what_still_works():
    # Mesa reports the version it is told to: a real driver capped as macOS caps it.
    out = context_error(MESA_GL_VERSION_OVERRIDE="4.1")
    assert "ContextError: HyperGL needs OpenGL 4.3 or newer, this driver has 4.1" in out
    assert "device='trace'" in out and "hgb" in out and "wgpu" in out


def test_no_egl_library_says_what_still_works():
    out = context_error(HYPERGL_EGL_LIBRARY="/nonexistent/libEGL.so.1")
    assert "ContextError: could not load the EGL library /nonexistent/libEGL.so.1" in out
    assert "The fallback, a hidden GLFW window, failed too" in out
    assert "device='trace'" in out


def test_macos_is_told_the_truth_not_a_debian_package(monkeypatch):
    monkeypatch.setattr(platform_support.sys, "platform", "darwin")
    message = platform_support.no_context_message(
        "could not load the EGL library libEGL.so.1. On Debian/Ubuntu: apt install"
    )
    assert message.startswith("macOS caps OpenGL at 4.1") and "device='trace'" in message
    assert "Metal" in message
    assert "macOS caps OpenGL at 4.1" in platform_support.too_old_message("4.1 Metal")
