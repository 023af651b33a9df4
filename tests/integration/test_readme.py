"""The README's example runs as written and prints what it says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.gl
def test_readme_example_runs_as_written(tmp_path):
    text = README.read_text()
    code = re.search(r"## A program in 20 lines\n\n```python\n(.*?)```", text, re.S).group(1)
    assert len([line for line in code.splitlines() if line.strip()]) <= 25
    script = tmp_path / "example.py"
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True)
    expected = re.search(r"# (1000 \[.*\])\s*$", code.strip()).group(1)
    assert out.stdout.split() == expected.split()


def test_readme_starts_with_what_hypergl_is():
    first_paragraph = README.read_text().split("\n\n")[1]
    assert "HyperGL is a Python graphics runtime" in first_paragraph


def test_readme_quick_start_is_the_two_commands():
    text = README.read_text()
    assert "python3 tools/dev.py demo" in text and "python3 tools/dev.py test" in text
