"""Where no EGL exists, GL tests are skipped with a reason: never failed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_gl_tests_skip_with_a_reason_without_egl(tmp_path):
    # An EGL library that does not exist, and no display for the hidden-window fallback,
    # stand for a machine without OpenGL.
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["HYPERGL_EGL_LIBRARY"] = str(tmp_path / "simulated-no-libEGL.so.1")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         "packages/hypergl-core/tests/test_probe.py",
         "packages/hypergl-core/tests/test_capabilities.py"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 passed, 5 skipped" in result.stdout  # capabilities pass, probe tests skip
    assert "could not load the EGL library" in result.stdout
    assert "simulated-no-libEGL" in result.stdout
