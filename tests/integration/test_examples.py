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
