"""py_gpu's own examples (packages/py-gpu/examples), run as a user runs them, small."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# The tests of an installed py-gpu (tools/test_installed.py) run without the examples folder.
pytestmark = pytest.mark.skipif(not EXAMPLES.is_dir(), reason=f"no {EXAMPLES} next to the tests")


def run_example(name: str, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def frames_in(mp4: Path) -> int:
    import imageio_ffmpeg

    return imageio_ffmpeg.count_frames_and_secs(str(mp4))[0]


@pytest.mark.parametrize("backend", ["numpy", pytest.param("moderngl", marks=pytest.mark.gl)])
def test_benchmark_raster_runs_with_its_documented_options(backend, tmp_path):
    out = tmp_path / "raster-benchmark.png"
    stdout = run_example(
        "benchmark_raster.py",
        "--backend",
        backend,
        "--frames",
        "3",
        "--triangles",
        "200",
        "--width",
        "160",
        "--height",
        "90",
        "--output",
        str(out),
    )
    assert "frames/s" in stdout and out.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize(("script", "frames"), [("render_preview.py", 6),
                                                ("render_lit_textured_shapes.py", 4)])  # fmt: skip
def test_preview_example_writes_its_png_and_mp4(tmp_path, script, frames):
    pytest.importorskip("imageio_ffmpeg", reason="MP4 needs imageio-ffmpeg (not on the GPU check)")
    png, mp4 = tmp_path / "preview.png", tmp_path / "preview.mp4"
    run_example(script, "--backend", "numpy", "--width", "160", "--height", "90",
                "--frames", str(frames), "--output", str(png), "--video", str(mp4))  # fmt: skip
    assert png.read_bytes().startswith(b"\x89PNG") and frames_in(mp4) == frames
