"""Where no EGL exists, GL tests are skipped with a reason: never failed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_gl_tests_skip_with_a_reason_without_egl(tmp_path):
    # A glcontext that cannot be imported stands for a machine without EGL.
    stub = tmp_path / "glcontext"
    stub.mkdir()
    (stub / "__init__.py").write_text("raise ImportError('simulated: no EGL on this machine')\n")
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         "packages/hypergl-core/tests/test_probe.py",
         "packages/hypergl-core/tests/test_capabilities.py"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 passed, 5 skipped" in result.stdout  # capabilities pass, probe tests skip
    assert "simulated: no EGL" in result.stdout
