"""ruff, configured in the root pyproject.toml, finds nothing, and the tree is as
`ruff format` writes it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_ruff_is_clean():
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed")
    result = subprocess.run([ruff, "check", str(ROOT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_ruff_format_leaves_the_tree_as_it_is():
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed")
    result = subprocess.run([ruff, "format", "--check", str(ROOT)], capture_output=True,
                            text=True)  # fmt: skip
    assert result.returncode == 0, (
        f"run ruff format (python3 tools/dev.py lint says which):\n{result.stdout}"
    )
