"""py_3d frames presented in a GLFW window (under Xvfb) without a PixelBuffer round trip."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import py3d_scenes
import pytest

from py_gpu.adapters.py3d import Py3DRasterRenderer
from py_gpu.errors import InvalidSizeError

pytestmark = [
    pytest.mark.gl,
    pytest.mark.window,
    pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="no display (run under xvfb-run)"),
]


def test_window_shows_the_frames_exactly_as_rendered():
    from py_gpu.adapters.py3d import Py3DWindow

    scene, settings = py3d_scenes.benchmark_scene_objects(), py3d_scenes.benchmark_settings()
    renderer = Py3DRasterRenderer()
    with Py3DWindow(settings.width, settings.height, title="py_3d test", visible=False) as window:
        for index in range(3):  # the camera moves every frame
            rgb = renderer.render_rgb(scene, py3d_scenes.benchmark_camera(index), settings)
            window.draw(rgb)
            assert np.array_equal(window.read(), rgb)
            window.show(rgb)
        assert not window.should_close
    assert renderer.stats["backend"] == 3


def test_window_rejects_a_bad_size_and_a_bad_frame():
    from py_gpu.adapters.py3d import Py3DWindow

    with pytest.raises(InvalidSizeError, match="0x10"):
        Py3DWindow(0, 10)
    with Py3DWindow(8, 8, visible=False) as window, pytest.raises(InvalidSizeError, match="8, 8"):
        window.show(np.zeros((8, 8), dtype=np.uint8))


def test_the_window_example_runs():
    import subprocess

    example = Path(__file__).resolve().parents[1] / "examples" / "py3d_window.py"
    if not example.exists():  # the tests of an installed py-gpu run without the examples
        pytest.skip(f"no {example}")
    result = subprocess.run(
        [sys.executable, str(example), "--frames", "5", "--width", "160", "--height", "90"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "5 frames" in result.stdout
