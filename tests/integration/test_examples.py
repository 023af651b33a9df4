"""The training example runs and reports its throughput."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.gl
def test_train_reach_runs_a_few_rollouts():
    pytest.importorskip("gymnasium")
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "train_reach.py"), "--envs", "8", "--steps",
         "256", "--rollout", "8"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "256 env-steps" in result.stdout and "env-steps/s" in result.stdout


@pytest.mark.gl
def test_mujoco_pixels_ppo_trains_a_few_iterations():
    """Needs torch: runs in .venv-examples (`tools/dev.py examples`), skipped elsewhere."""
    pytest.importorskip("torch")
    pytest.importorskip("hypergl_mujoco")
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "mujoco_pixels_ppo.py"), "--envs", "2",
         "--steps", "64", "--rollout", "16", "--size", "48"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "iteration 2/2" in result.stdout and "env-steps/s" in result.stdout
