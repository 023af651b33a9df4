"""One home for GLSL's first lines and the camera block (hypergl.shader_prelude): the
camera block's GLSL and its NumPy record agree byte for byte on real GL. (That every GLSL
builder of the distributions uses it: tests/integration/test_shader_prelude_users.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

from hypergl.shader_prelude import (
    CAMERA_BYTES,
    CAMERA_DTYPE,
    VERSION,
    camera_block,
    camera_record,
    defines,
    insert_after_directives,
)


def test_the_record_is_the_block_std140():
    assert CAMERA_BYTES == 112 == CAMERA_DTYPE.itemsize
    assert [CAMERA_DTYPE.fields[name][1] for name in ("view_proj", "eye", "light", "lod")] == [
        0, 64, 80, 96]  # fmt: skip
    matrix = np.arange(16.0).reshape(4, 4)
    record = camera_record(matrix, (1, 2, 3, 1), (0, 1, 0), 0.25)
    assert record.shape == (1,)
    assert np.array_equal(record["view_proj"][0], matrix.T.reshape(-1))  # column-major
    assert record["eye"][0].tolist() == [1, 2, 3, 1]
    assert record["light"][0].tolist() == [0, 1, 0, 0]
    assert record["lod"][0].tolist() == [0.25, 0, 0, 0]


def test_bad_names_and_bindings_are_refused():
    with pytest.raises(ValueError, match="binding"):
        camera_block(-1)
    with pytest.raises(ValueError, match="identifier"):
        camera_block(0, "no spaces")
    with pytest.raises(ValueError, match="identifier"):
        defines({"1X": 1})
    assert defines({"A": 1, "B_2": "x"}) == "#define A 1\n#define B_2 x\n"


def test_includes_go_after_the_directives_with_line_numbers_resumed():
    source = "#version 430\n#extension GL_X : enable\nvoid main() {}\n"
    out = insert_after_directives(source, "int inserted;\n", 2)
    assert out == ("#version 430\n#extension GL_X : enable\n#line 1 2\nint inserted;\n"
                   "#line 3 0\nvoid main() {}\n")  # fmt: skip
    bare = insert_after_directives("void main() {}\n", "x;\n", 1)
    assert bare == "#line 1 1\nx;\n#line 1 0\nvoid main() {}\n"


@pytest.mark.gl
def test_a_shader_reads_the_record_as_written(gl_ctx):
    ctx = gl_ctx
    """A compute shader copies the block into a storage buffer: the bytes match."""
    source = (VERSION + camera_block(3, "Probe")
              + "layout(local_size_x = 1) in;\n"
              "layout(std430, binding = 0) writeonly buffer Out { vec4 rows[7]; };\n"
              "void main() { for (int c = 0; c < 4; ++c) rows[c] = view_proj[c];\n"
              "  rows[4] = eye; rows[5] = light; rows[6] = lod; }\n")  # fmt: skip
    pipeline = ctx.pipeline(compute_shader=source)
    record = camera_record(np.arange(16.0).reshape(4, 4) + 1, (4, 5, 6, 1), (0, 0, 1), 0.5)
    block = ctx.buffer(record, usage="uniform")
    out = ctx.buffer(size=7 * 16)
    cmd = ctx.command_buffer()
    cmd.bind_pipeline(pipeline)
    cmd.bind_uniform_buffer(block, 3)
    cmd.bind_storage_buffer(out, 0)
    cmd.dispatch(1)
    cmd.barrier()
    cmd.end()
    cmd.submit()
    ctx.finish()
    assert out.read(np.float32).tobytes() == record.tobytes()
