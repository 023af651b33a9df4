"""examples/animated_forest.py records a self-animating .hgb; `hypergl play` plays it with no
Python scene code, the same frames every time."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "animated_forest.py"

pytestmark = pytest.mark.gl


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), capture_output=True, text=True, timeout=300, cwd=cwd)


def test_the_example_file_plays_into_an_mp4_and_a_png(tmp_path):
    made = run(sys.executable, str(EXAMPLE), "--out", "forest.hgb", "--size", "64", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    pngs = []
    for take in ("a", "b", "c"):
        frames = "12" if take != "c" else "2"
        played = run(sys.executable, "-m", "hypergl", "play", "forest.hgb", "--frames", frames,
                     "--out", take, cwd=tmp_path)  # fmt: skip
        assert played.returncode == 0, played.stderr
        pngs.append((tmp_path / take / "last.png").read_bytes())
        assert pngs[-1].startswith(b"\x89PNG")
    assert pngs[0] == pngs[1]  # a fixed clock step and seed: the same frames
    assert pngs[0] != pngs[2]  # and the scene moves by itself
    try:
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        return
    assert (tmp_path / "a" / "play.mp4").stat().st_size > 0


@pytest.mark.window
@pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="no display (run under xvfb-run)")
def test_the_example_file_plays_in_a_window(tmp_path):
    made = run(sys.executable, str(EXAMPLE), "--out", "forest.hgb", "--size", "64", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    played = run(sys.executable, "-m", "hypergl", "play", "forest.hgb", "--window", "--frames",
                 "5", cwd=tmp_path)  # fmt: skip
    assert played.returncode == 0, played.stderr
    assert played.stdout.splitlines()[-1] == "played 5 frames"
