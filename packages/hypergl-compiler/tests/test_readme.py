"""The usage example of the package README runs as written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).parents[1] / "README.md"


def test_readme_example_runs(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "the README has no python example"
    monkeypatch.chdir(tmp_path)  # it writes scene.hgb
    exec(compile(blocks[0], str(README), "exec"), {})
    assert (tmp_path / "scene.hgb").stat().st_size > 0
