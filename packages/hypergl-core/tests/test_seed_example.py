"""The HyperGL description's compiler example runs as written, on real OpenGL.

EXAMPLE is the text of the description (issue 12), unchanged; the test defines
what the text leaves to the reader (``ctx``, ``tree_pipe``, ``visibility_ssbo``)
and runs it with ``while True:`` bounded to a few frames. The text binds no
framebuffer, so it draws into the window's own: ``ctx`` is a (hidden) window.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import hypergl
from hypergl_compiler import isa

pytestmark = [
    pytest.mark.gl,
    pytest.mark.window,
    pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="no display (run under xvfb-run)"),
]

EXAMPLE = """\
@hypergl.subroutine
def draw_forest_cluster(cb):
    sc = hypergl.SceneCompiler(cb)
    cb.bind_pipeline(tree_pipe)
    with sc.loop(reg=0, count=1000):   # A Loop that runs entirely in C
        cb.draw()

cmd = ctx.command_buffer()
sc = hypergl.SceneCompiler(cmd)
cmd.begin()
cmd.clear()
with sc.condition(visibility_ssbo, offset=0):
    draw_forest_cluster(cmd)           # Emits 1 C instruction: CALL
cmd.end()
while True:
    cmd.submit()
"""
FRAMES = 3

TREE_VERTEX = """#version 430
void main() {
    vec2 corner = vec2(gl_VertexID == 1, gl_VertexID == 2);
    gl_Position = vec4(corner * 4.0 - 1.0, 0.0, 1.0);
}
"""
TREE_FRAGMENT = """#version 430
out vec4 color;
void main() { color = vec4(0.1, 0.6, 0.2, 1.0); }
"""


@pytest.fixture
def window_ctx():
    with hypergl.context(window=(32, 32), visible=False) as ctx:
        yield ctx
        ctx.check_errors()


def run_example(ctx, visible: int) -> dict:
    """Run EXAMPLE for FRAMES frames with the names it needs; returns its namespace."""
    namespace = {
        "hypergl": hypergl,
        "ctx": ctx,
        "tree_pipe": ctx.pipeline(
            vertex_shader=TREE_VERTEX, fragment_shader=TREE_FRAGMENT, vertex_count=3
        ),
        "visibility_ssbo": ctx.buffer(np.uint32([visible])),
    }
    bounded = EXAMPLE.replace("while True:", f"for _frame in range({FRAMES}):")
    assert bounded.count("for _frame") == 1  # the only change to the text
    exec(compile(bounded, "<seed example>", "exec"), namespace)
    return namespace


def test_the_seed_example_runs_as_written(window_ctx):
    namespace = run_example(window_ctx, visible=1)
    cmd = namespace["cmd"]
    stats = cmd.submit()
    assert stats.draws == 1000  # the loop ran in the VM, one call from the main program
    assert window_ctx.screen.read()[16, 16].tolist() == [26, 153, 51, 255]
    (cluster,) = cmd.program.subroutines
    assert cluster.name == "draw_forest_cluster"
    main = cmd.program.code[: cluster.entry * 16]
    calls = [main[i] for i in range(0, len(main), 16) if main[i] == isa.BY_NAME["call"].code]
    assert len(calls) == 1  # "Emits 1 C instruction: CALL"
    cmd.release("all")
    assert window_ctx.live_objects() == [window_ctx.screen]


def test_the_condition_skips_the_cluster_when_the_flag_is_zero(window_ctx):
    namespace = run_example(window_ctx, visible=0)
    assert namespace["cmd"].submit().draws == 0
    assert window_ctx.screen.read()[16, 16].tolist() == [0, 0, 0, 255]
    namespace["visibility_ssbo"].map(np.uint32)[0] = 1  # steer it without re-recording
    assert namespace["cmd"].submit().draws == 1000
