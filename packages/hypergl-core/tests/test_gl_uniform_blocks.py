"""A uniform block bound with fewer bytes than the shader's block: refused at the draw,
naming the block, its size and what is bound (issue 24, item 10: it drew with zeros)."""

from __future__ import annotations

import numpy as np
import pytest

from hypergl import VMError

pytestmark = pytest.mark.gl

VS = """#version 430
layout(std140, binding = 1) uniform Params { vec4 offset; vec4 scale; };
void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0) * scale + offset; }
"""
FS = "#version 430\nout vec4 color;\nvoid main() { color = vec4(1.0); }\n"
CS = """#version 430
layout(local_size_x = 1) in;
layout(std140, binding = 1) uniform Params { vec4 offset; vec4 scale; };
layout(std430, binding = 0) buffer Out { vec4 value; };
void main() { value = offset + scale; }
"""


def frame(ctx, bind, compute=False):
    fb = ctx.framebuffer((4, 4), depth=None)
    params = ctx.buffer(size=512, usage="uniform")
    cmd = ctx.command_buffer()
    if compute:
        cmd.bind_pipeline(ctx.pipeline(compute_shader=CS))
        cmd.bind_storage_buffer(ctx.buffer(size=16), 0)
    else:
        cmd.bind_framebuffer(fb)
        cmd.bind_pipeline(ctx.pipeline(vertex_shader=VS, fragment_shader=FS))
    bind(cmd, params, ctx)
    if compute:
        cmd.dispatch(1, 1, 1)
    else:
        cmd.draw(1)
    cmd.end()
    return cmd


@pytest.mark.parametrize("compute", [False, True])
def test_a_range_smaller_than_the_block_is_refused_naming_block_size_and_range(gl_ctx, compute):
    cmd = frame(gl_ctx, lambda cmd, params, ctx: cmd.bind_uniform_range(params, 1, 256, 16),
                compute)  # fmt: skip
    with pytest.raises(
        VMError,
        match=r"uniform block 'Params' of pipeline '\w+' \(binding 1\) "
        r"is 32 bytes, but only 16 bytes are bound there",
    ) as e:
        cmd.submit()  # fmt: skip
    assert e.value.mnemonic == ("dispatch" if compute else "draw")


def test_a_whole_buffer_smaller_than_the_block_is_refused(gl_ctx):
    def bind(cmd, params, ctx):
        cmd.bind_uniform_buffer(ctx.buffer(np.zeros(4, np.float32), usage="uniform"), 1)

    with pytest.raises(VMError, match="is 32 bytes, but only 16 bytes are bound"):
        frame(gl_ctx, bind).submit()


def test_a_range_of_the_block_size_or_more_draws(gl_ctx):
    for size in (32, 256):
        cmd = frame(gl_ctx, lambda cmd, params, ctx, size=size:
                    cmd.bind_uniform_range(params, 1, 0, size))  # fmt: skip
        assert cmd.submit().draws == 1
