"""examples/mujoco_humanoids.py, small: a few worlds, a few frames, and the files it writes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mujoco_humanoids.py"

pytestmark = pytest.mark.gl
Image = pytest.importorskip("PIL.Image")
pytest.importorskip("mujoco")
pytest.importorskip("gymnasium")
pytest.importorskip("hypergl_mujoco")


def humanoid_fraction(image: np.ndarray) -> float:
    """Pixels in the humanoids' orange (red well above blue; floor and sky are not)."""
    rgb = image[..., :3].astype(int)
    return float(((rgb[..., 0] - rgb[..., 2] > 60) & (rgb[..., 0] > 100)).mean())


def test_a_grid_of_falling_humanoids_into_a_video_and_a_png(tmp_path):
    frames = 8
    result = subprocess.run(
        [sys.executable, str(EXAMPLE), "--worlds", "4", "--frames", str(frames),
         "--tile", "64x48", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert f"humanoids [{'#' * 30}] {frames}/{frames}" in result.stderr  # the progress line
    assert f"{frames} frames of 4 humanoid worlds" in result.stdout
    final = np.asarray(Image.open(tmp_path / "final.png"))
    assert final.shape == (2 * 48, 2 * 64, 3)  # 4 worlds tiled 2 x 2
    cells = final.reshape(2, 48, 2, 64, 3).swapaxes(1, 2).reshape(4, 48, 64, 3)
    assert all(humanoid_fraction(cell) > 0.005 for cell in cells), "a world shows no humanoid"
    assert len({cell.tobytes() for cell in cells}) == 4  # each world falls its own way
    videos = list(tmp_path.glob("humanoids.*"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
    if videos[0].suffix == ".mp4":
        imageio = pytest.importorskip("imageio.v2")
        with imageio.get_reader(videos[0]) as reader:
            assert sum(1 for _ in reader) == frames
    else:
        assert Image.open(videos[0]).n_frames == frames


def test_bad_options_are_one_line_errors(tmp_path):
    command = [sys.executable, str(EXAMPLE), "--tile", "big", "--out", str(tmp_path)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "--tile must look like 160x120, got 'big'" in result.stderr


def test_the_overlapped_grid_draws_exactly_what_the_sequential_grid_draws(tmp_path):
    finals = []
    for mode in ([], ["--sequential"]):
        out = tmp_path / (mode[0][2:] if mode else "overlapped")
        result = subprocess.run(
            [sys.executable, str(EXAMPLE), "--worlds", "4", "--frames", "6", "--tile", "48x36",
             "--out", str(out), *mode],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        assert ("sequential" if mode else "overlapped") in result.stdout
        finals.append(np.asarray(Image.open(out / "final.png")))
    assert np.array_equal(finals[0], finals[1]), "frame N must show physics state N"
