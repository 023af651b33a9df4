"""An SDL window without a display is never silently invisible."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.gl


SDL_WITHOUT_DISPLAY = """
import warnings
import hypergl
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        ctx = hypergl.context(window=(16, 16), backend="sdl")
    except hypergl.ContextError as exc:
        print("error:", exc)
    else:
        ctx.close()
for warning in caught:
    print(warning.category.__name__, warning.message)
"""


@pytest.mark.parametrize("asked", [None, "offscreen"])
def test_sdl_without_a_display_says_it_falls_back(asked):
    pytest.importorskip("sdl2", reason="PySDL2 is an optional extra (hypergl-core[sdl])")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("SDL_VIDEODRIVER", None)
    if asked:
        env["SDL_VIDEODRIVER"] = asked
    result = subprocess.run(
        [sys.executable, "-c", SDL_WITHOUT_DISPLAY], capture_output=True, text=True,
        timeout=120, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # Never silence: either an error, or a warning that the window is invisible,
    # except when SDL_VIDEODRIVER asked for exactly that.
    if asked:
        assert "RuntimeWarning" not in result.stdout
    else:
        assert "error:" in result.stdout or "fell back to its" in result.stdout, result.stdout
