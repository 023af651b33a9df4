"""hypergl_rl.BatchRenderer used by several threads while another closes it (issue 36,
item 1): the renders end with our error, the process survives, and a render after the
close is refused; many rounds in an interpreter of its own (hypergl.testing.run_isolated)."""

from __future__ import annotations

import pytest

from hypergl.testing import run_isolated

pytestmark = pytest.mark.gl

SCRIPT = r"""
import sys
import hypergl
from hypergl import ResourceError
from hypergl.testing import race_close
from hypergl_rl import BatchRenderer

seen = set()
for _ in range(int(sys.argv[1])):
    ctx = hypergl.context()
    renderer = BatchRenderer(4, 16, 16, context=ctx)
    uses = [renderer.render, renderer.render,
            lambda: renderer.look_at((0.0, 2.0, -3.0), (0.0, 0.0, 0.0))]
    ended = race_close(uses, renderer.close)
    foreign = [repr(e) for e in ended if not isinstance(e, ResourceError)]
    assert not foreign, foreign
    seen.update(type(e).__name__ for e in ended)
    try:
        renderer.render()
    except ResourceError:
        pass
    else:
        raise AssertionError("a render after the close succeeded")
    renderer.close()  # a second close does nothing
    ctx.close()
print(sorted(seen))
"""


def test_a_close_racing_renders_ends_them_with_our_error():
    out = run_isolated(SCRIPT, "15")
    assert "Error" in out
