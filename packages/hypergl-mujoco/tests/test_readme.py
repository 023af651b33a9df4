"""The first program of hypergl-mujoco's README runs as written and sees its box."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.gl
def test_first_program_runs(capsys):
    code = re.search(r"## A first program\n\n```python\n(.*?)```", README.read_text(),
                     re.S).group(1)  # fmt: skip
    namespace: dict = {}
    exec(compile(code, str(README), "exec"), namespace)
    assert capsys.readouterr().out == "(4, 1, 84, 84, 3) (4, 1, 84, 84) (4, 1, 84, 84)\n"
    seen = namespace["result"].segmentation
    assert (seen == 1).any() and (seen == 0).any()  # the box and the floor
