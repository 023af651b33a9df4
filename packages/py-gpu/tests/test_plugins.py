"""A third-party distribution registers a backend through the ``py_gpu.backends`` entry points.

The fixture distribution (fixtures/py-gpu-plugin-example, beside this file) is installed into
a throw-away virtual environment layered over this one, so the shared environment is never
modified.
"""

from __future__ import annotations

import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import py_gpu

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "py-gpu-plugin-example"


def _run(args, **kwargs):
    result = subprocess.run(args, capture_output=True, text=True, timeout=120, **kwargs)
    assert result.returncode == 0, f"{args}\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def plugin_python(tmp_path_factory) -> Path:
    pytest.importorskip("hatchling", reason="building the fixture needs hatchling (test extra)")
    venv = tmp_path_factory.mktemp("plugin") / "venv"
    _run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    # Layer the test environment (py_gpu, pip, hatchling) under the new one.
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    lines = "".join(f"import site; site.addsitedir({d!r})\n" for d in site.getsitepackages())
    (Path(purelib.strip()) / "_parent_env.pth").write_text(lines)
    _run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
         "--no-index", str(FIXTURE)]
    )  # fmt: skip
    return python


def test_plugin_backend_is_found(plugin_python):
    script = textwrap.dedent(
        """
        import py_gpu
        assert "example" in py_gpu.installed_backends()
        backend = py_gpu.select_backend("example")
        batch = py_gpu.RasterBatch.from_arrays([[(0, 0, 1), (8, 0, 1), (0, 8, 1)]], [(5, 6, 7)])
        frame = backend.render(batch, 8, 8, background=(1, 1, 1))
        print(type(backend).__module__, backend.name, frame.get_pixel(1, 1), frame.get_pixel(7, 7))
        print(py_gpu.available_backends()["example"].available)
        """
    )
    out = _run([str(plugin_python), "-c", script]).split()
    assert out == ["py_gpu_plugin_example", "example", "(5,", "6,", "7)", "(1,", "1,", "1)", "True"]


def test_shared_environment_is_untouched(plugin_python):
    import importlib.metadata

    names = {ep.name for ep in importlib.metadata.entry_points(group="py_gpu.backends")}
    assert "example" not in names
    assert "example" not in py_gpu.installed_backends()
