"""The Quick start of hypergl-culverin's README runs as written and draws the bodies."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.gl
@pytest.mark.culverin
def test_quick_start_runs():
    code = re.search(r"## Quick start\n\n```python\n(.*?)```", README.read_text(), re.S).group(1)
    namespace: dict = {}
    exec(compile(code, str(README), "exec"), namespace)
    image = namespace["image"]
    assert image.shape == (256, 256, 4)
    assert (image[..., :3].max(axis=-1) > 40).sum() > 500  # the orange bodies are on screen
    assert np.asarray(image)[0, 0, :3].tolist() == [0, 0, 0]
