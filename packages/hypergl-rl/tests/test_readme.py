"""The Quick start of hypergl-rl's README runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.gl
def test_quick_start_runs():
    code = re.search(r"## Quick start\n\n```python\n(.*?)```", README.read_text(), re.S).group(1)
    exec(compile(code, str(README), "exec"), {})
