"""Draws that cannot run away: vertex ranges, the vertex budget, a clean GL state per submit.

Issue 17, item 3: `draw(100000)` with a 16-byte vertex buffer was not range-checked,
`draw(2**31-1, 0, 7)` blocked for minutes whatever the budget, and a program that
never bound a framebuffer rendered into one an earlier program had left bound.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import hypergl
from hypergl import VMError

VERTEX = """#version 430
layout(location = 0) in vec4 position;
void main() { gl_Position = position; }
"""
INSTANCED = """#version 430
layout(location = 0) in vec4 position;
layout(location = 1) in vec4 offset;
void main() { gl_Position = position + offset; }
"""
NO_INPUTS = "#version 430\nvoid main() { gl_Position = vec4(0.0); }\n"
FRAGMENT = "#version 430\nout vec4 color;\nvoid main() { color = vec4(1.0); }\n"
ONE_VEC4 = [{"binding": 0, "stride": 16, "attributes": [{"location": 0, "format": "f32x4"}]}]
PER_INSTANCE = [
    *ONE_VEC4,
    {"binding": 1, "stride": 16, "per_instance": True,
     "attributes": [{"location": 1, "format": "f32x4"}]},
]  # fmt: skip
DEVICES = ["trace", "null", pytest.param("gl", marks=pytest.mark.gl)]


@pytest.fixture(params=DEVICES)
def ctx(request):
    context = hypergl.context(device=request.param)
    yield context
    context.close()


def program(ctx, record, *, layout=ONE_VEC4, shader=VERTEX, vertices=1, instances=1):
    """A command buffer drawing into an 8x8 framebuffer with a pipeline of `layout`."""
    fb = ctx.framebuffer((8, 8), depth=None)
    pipe = ctx.pipeline(vertex_shader=shader, fragment_shader=FRAGMENT, vertex_layout=layout)
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.bind_pipeline(pipe)
    if layout:
        cmd.bind_vertex_buffer(ctx.buffer(np.zeros(4 * vertices, np.float32), name="verts"), 0)
    if len(layout or ()) > 1:
        cmd.bind_vertex_buffer(ctx.buffer(np.zeros(4 * instances, np.float32), name="inst"), 1)
    record(cmd)
    cmd.end()
    return cmd


def test_a_draw_past_its_vertex_buffer_is_a_vm_error(ctx):
    cmd = program(ctx, lambda c: c.draw(100_000), vertices=1)
    expected = r"vertex 99999 reads bytes up to 1600000 of vertex buffer 'verts' \(binding 0, "
    with pytest.raises(VMError, match=expected + r"stride 16\), which has 16"):
        cmd.submit()


def test_a_draw_inside_its_vertex_buffer_runs(ctx):
    cmd = program(ctx, lambda c: c.draw(3, first=1), vertices=4)
    assert cmd.submit().draws == 1


def test_first_counts_towards_the_range(ctx):
    cmd = program(ctx, lambda c: c.draw(3, first=2), vertices=4)
    with pytest.raises(VMError, match="vertex 4 reads bytes up to 80"):
        cmd.submit()


def test_per_instance_inputs_are_checked_against_the_instance_count(ctx):
    ok = program(ctx, lambda c: c.draw(3, instances=2), layout=PER_INSTANCE, shader=INSTANCED,
                 vertices=3, instances=2)  # fmt: skip
    assert ok.submit().draws == 1
    bad = program(ctx, lambda c: c.draw(3, instances=3), layout=PER_INSTANCE, shader=INSTANCED,
                  vertices=3, instances=2)  # fmt: skip
    with pytest.raises(VMError, match="instance 2 reads bytes up to 48 of vertex buffer 'inst'"):
        bad.submit()


def test_draw_reg_is_checked_with_the_register_values(ctx):
    def record(c):
        c.li(0, 5)
        c.li(1, 0)
        c.li(2, 1)
        c.draw_reg(0, 1, 2)

    with pytest.raises(VMError, match=r"instruction 6 \(draw_reg\): vertex 4 reads"):
        program(ctx, record, vertices=4).submit()


def test_a_pipeline_input_without_a_buffer_is_a_vm_error(ctx):
    fb = ctx.framebuffer((8, 8), depth=None)
    pipe = ctx.pipeline(vertex_shader=VERTEX, fragment_shader=FRAGMENT, vertex_layout=ONE_VEC4)
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.bind_pipeline(pipe)
    cmd.draw(3)
    cmd.end()
    with pytest.raises(VMError, match="reads vertex binding 0, which has no buffer bound"):
        cmd.submit()


def test_indexed_draws_check_their_instances_and_bound_inputs(ctx):
    def record(c):
        c.bind_index_buffer(ctx.buffer(np.zeros(3, np.uint32)))
        c.draw_indexed(3, instances=5)

    with pytest.raises(VMError, match="instance 4 reads"):
        program(ctx, record, layout=PER_INSTANCE, shader=INSTANCED, vertices=3,
                instances=4).submit()  # fmt: skip


def test_the_issue_draw_fails_fast_on_the_vertex_budget(ctx):
    """draw(2**31-1, 0, 7): 15 billion vertices, far beyond the default budget."""
    cmd = program(ctx, lambda c: c.draw(2**31 - 1, 0, 7), layout=[], shader=NO_INPUTS)
    expected = r"2147483647 vertices x 7 instances, beyond what is left of the vertex budget "
    with pytest.raises(VMError, match=expected + r"\(268435456 of 268435456"):
        cmd.submit()


def test_draw_reg_of_a_huge_register_fails_on_the_budget(ctx):
    def record(c):
        c.li(0, 0x7FFFFFFF)
        c.li(1, 0)
        c.li(2, 1)
        c.draw_reg(0, 1, 2)

    with pytest.raises(VMError, match="vertex budget"):
        program(ctx, record, layout=[], shader=NO_INPUTS).submit(budget=10)


def test_the_vertex_budget_is_per_submit_and_raisable(ctx):
    def record(c):
        with hypergl.SceneCompiler(c).loop(0, 4):
            c.draw(300)

    cmd = program(ctx, record, layout=[], shader=NO_INPUTS)
    assert hypergl.DEFAULT_VERTEX_BUDGET == 2**28
    assert cmd.submit(vertex_budget=1200).draws == 4
    assert cmd.submit(vertex_budget=1200).draws == 4  # a fresh budget each submit
    with pytest.raises(VMError, match=r"300 vertices x 1 instances.*\(299 of 1199 per submit"):
        cmd.submit(vertex_budget=1199)
    prepared = cmd.prepare(vertex_budget=600)
    with pytest.raises(VMError, match="vertex budget"):
        prepared.submit()


@pytest.mark.parametrize("bad", [-1, 2**64, 1.5, "many", True, None])
def test_a_bad_vertex_budget_is_rejected(trace_ctx, bad):
    cmd = trace_ctx.command_buffer()
    cmd.end()
    with pytest.raises(ValueError, match=r"vertex_budget must be an int in 0..2\*\*64-1, got "):
        cmd.submit(vertex_budget=bad)


def test_a_vertex_buffer_bound_by_an_earlier_program_is_not_visible(ctx):
    first = program(ctx, lambda c: c.draw(3), vertices=3)
    first.submit()
    pipe = ctx.pipeline(vertex_shader=VERTEX, fragment_shader=FRAGMENT, vertex_layout=ONE_VEC4)
    second = ctx.command_buffer()
    second.bind_framebuffer(ctx.framebuffer((8, 8), depth=None))
    second.bind_pipeline(pipe)
    second.draw(3)
    second.end()
    with pytest.raises(VMError, match="no buffer bound"):
        second.submit()


@pytest.mark.gl
def test_a_framebuffer_bound_by_an_earlier_program_is_not_visible(gl_ctx):
    """Issue 17: a program that binds no framebuffer drew into the one left bound."""
    fb = gl_ctx.framebuffer((4, 4), depth=None)
    red = gl_ctx.command_buffer()
    red.bind_framebuffer(fb)
    red.clear(color=(1, 0, 0, 1))
    red.end()
    red.submit()
    full = "#version 430\nvoid main() { gl_Position = vec4(vec2(gl_VertexID == 1, " \
           "gl_VertexID == 2) * 4.0 - 1.0, 0.0, 1.0); }"  # fmt: skip
    paint = "#version 430\nout vec4 c; void main() { c = vec4(0.0, 1.0, 0.0, 1.0); }"
    green = gl_ctx.command_buffer()  # never binds a framebuffer
    green.bind_pipeline(gl_ctx.pipeline(vertex_shader=full, fragment_shader=paint))
    green.draw(3)
    green.end()
    with contextlib.suppress(VMError):  # no framebuffer of its own: an error is right too
        green.submit()
    assert fb.read()[0, 0].tolist() == [255, 0, 0, 255]


@pytest.mark.gl
def test_a_texture_bound_by_an_earlier_program_is_not_visible(gl_ctx):
    """A shader sampling a unit its program never bound sees no texture, not the last one."""
    full = "#version 430\nvoid main() { gl_Position = vec4(vec2(gl_VertexID == 1, " \
           "gl_VertexID == 2) * 4.0 - 1.0, 0.0, 1.0); }"  # fmt: skip
    sample = ("#version 430\nlayout(binding = 0) uniform sampler2D tex; out vec4 c;\n"
              "void main() { c = texture(tex, vec2(0.5)); }")  # fmt: skip
    pipe = gl_ctx.pipeline(vertex_shader=full, fragment_shader=sample)
    red = gl_ctx.texture(np.full((2, 2, 4), (255, 0, 0, 255), np.uint8), filter="nearest")

    def draw(bind_texture):
        fb = gl_ctx.framebuffer((4, 4), depth=None)
        cmd = gl_ctx.command_buffer()
        cmd.bind_framebuffer(fb)
        cmd.clear(color=(0, 0, 1, 1))
        cmd.bind_pipeline(pipe)
        if bind_texture:
            cmd.bind_texture(red, 0)
        cmd.draw(3)
        cmd.end()
        cmd.submit()
        return fb.read()[1, 1].tolist()

    assert draw(bind_texture=True) == [255, 0, 0, 255]
    assert draw(bind_texture=False) == [0, 0, 0, 255]  # GL's incomplete texture, not red


def test_indirect_draws_need_every_vertex_input_bound(ctx):
    """Their counts are in GPU memory, but a missing buffer is known before the draw."""
    commands = ctx.buffer(np.array([3, 1, 0, 0], np.uint32), usage="indirect")
    pipe = ctx.pipeline(vertex_shader=VERTEX, fragment_shader=FRAGMENT, vertex_layout=ONE_VEC4)
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(ctx.framebuffer((8, 8), depth=None))
    cmd.bind_pipeline(pipe)
    cmd.bind_indirect_buffer(commands)
    cmd.draw_indirect(0)
    cmd.end()
    with pytest.raises(VMError, match=r"\(draw_indirect\): pipeline '.*' reads vertex binding 0, "
                                      r"which has no buffer bound"):  # fmt: skip
        cmd.submit()
