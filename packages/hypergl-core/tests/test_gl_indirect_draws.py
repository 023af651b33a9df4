"""One records-and-indirect core (hypergl.indirect_draws) under DrawList and BodyRenderer.

Both store their objects as mapped records and draw them with IndirectCommands: the
multi-draw with a GPU-read count, or the plain one where the driver has no indirect count,
is written once, there; neither file spells a multi-draw of its own.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import hypergl
from hypergl.bodies import BodyRenderer, InstanceRecords
from hypergl.indirect_draws import (
    DRAW_COMMAND,
    INDEXED_COMMAND,
    IndirectCommands,
    mapped_records,
)

SRC = Path(hypergl.__file__).parent
VERTEX = """#version 430
layout(location = 0) in vec2 position;
void main() { gl_Position = vec4(position, 0.0, 1.0); }
"""
FRAGMENT = """#version 430
out vec4 color;
void main() { color = vec4(1.0); }
"""


@pytest.mark.parametrize("path", ["draw_list.py", "bodies/renderer.py"])
def test_neither_user_spells_a_multi_draw(path):
    text = (SRC / path).read_text(encoding="utf-8")
    assert not re.search(r"\.multi_draw\w*\(", text), f"{path}: draw through IndirectCommands"
    assert "IndirectCommands(" in text


def test_both_hold_the_core(trace_ctx):
    quad = np.array([[0, 0], [1, 0], [0, 1]], np.float32)
    draws = hypergl.DrawList(trace_ctx, meshes={"tri": quad},
                             vertex_layout=[{"location": 0, "format": "f32x2", "offset": 0}],
                             textures=np.zeros((1, 2, 2, 4), np.uint8), fields={"x": "float"},
                             capacity=4)  # fmt: skip
    assert isinstance(draws._commands, IndirectCommands) and draws.commands.dtype == DRAW_COMMAND
    bodies = BodyRenderer(InstanceRecords(trace_ctx, 4))
    assert isinstance(bodies._commands, IndirectCommands) and bodies._commands.indexed
    assert bodies._commands.dtype == INDEXED_COMMAND and INDEXED_COMMAND.itemsize == 20


def test_the_records_are_zeroed_and_mapped(trace_ctx):
    dtype = np.dtype([("a", "<f4", 4), ("b", "<u4")])
    buffer, records = mapped_records(trace_ctx, dtype, 3, name="probe")
    assert buffer.size == 3 * dtype.itemsize and records.shape == (3,)
    assert not records.view(np.uint8).any()


@pytest.mark.gl
def test_a_counted_range_draws_what_the_count_says(gl_ctx):
    """Three triangles, one per third of the frame; the count says two: only two are lit
    (where the driver has no indirect count, the plain multi-draw draws all three)."""
    ctx = gl_ctx
    thirds = [np.array([[x, -1], [x + 0.6, -1], [x, 1]], np.float32) for x in (-1.0, -0.33, 0.33)]
    vertices = ctx.buffer(np.concatenate(thirds), usage="vertex")
    layout = [{"binding": 0, "stride": 8, "attributes": [{"location": 0, "format": "f32x2"}]}]
    pipeline = ctx.pipeline(vertex_shader=VERTEX, fragment_shader=FRAGMENT, vertex_layout=layout)
    commands = IndirectCommands(ctx, 3, indexed=False, name="probe")
    commands.commands[:] = [(3, 1, 3 * k, 0) for k in range(3)]
    commands.set_counts([2])
    fb = ctx.framebuffer((30, 10), depth=None)
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 0, 0, 1))
    cmd.bind_pipeline(pipeline)
    cmd.bind_vertex_buffer(vertices, 0)
    commands.bind(cmd)
    commands.draw(cmd, 0, 3, counted=0)
    cmd.end()
    cmd.submit()
    lit = fb.read()[5, [1, 11, 21], 0] > 0
    assert lit.tolist() == [True, True, not commands.indirect_count]
    for buffer in commands.buffers():
        buffer.release()
