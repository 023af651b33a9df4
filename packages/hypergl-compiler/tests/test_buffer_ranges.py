"""bind_uniform_range / bind_storage_range: recorded, disassembled, and bad ranges refused;
and the other GL limit the ISA holds every program to: dispatch group counts."""

from __future__ import annotations

import pytest

from hypergl_compiler import CommandBuffer, CompileError, dis, isa, verify


def recorder():
    cmd = CommandBuffer()
    return cmd, cmd.buffer("blocks", size=1024)


def test_ranges_record_binding_buffer_offset_and_size():
    cmd, blocks = recorder()
    cmd.bind_uniform_range(blocks, 3, 256, 80)
    cmd.bind_storage_range(blocks, 63, 768, 256)
    program = cmd.end()
    verify(program)
    ops = [isa.decode(program.code, i) for i in range(2)]
    assert [(isa.BY_CODE[op].name, a, c, d) for op, a, _b, c, d in ops] == [
        ("bind_uniform_range", 3, 256, 80),
        ("bind_storage_range", 63, 768, 256),
    ]
    assert "bind_uniform_range" in dis(program)


@pytest.mark.parametrize(
    ("offset", "size", "binding", "message"),
    [
        (100, 16, 0, "offset 100 is not a multiple of 256"),
        (0, 0, 0, "size 0 is outside 1..16384"),
        (0, 16385, 0, "size 16385 is outside 1..16384"),
        (768, 512, 0, r"range 768 \+ 512 is outside buffer .blocks. of 1024 bytes"),
        (0, 16, 64, "binding: 64 is not an integer in 0..63"),
        (-256, 16, 0, "offset: -256 is not an integer"),
        (0, 1.5, 0, "size: 1.5 is not an integer"),
    ],
)
@pytest.mark.parametrize("method", ["bind_uniform_range", "bind_storage_range"])
def test_bad_ranges_are_refused_when_recorded(method, offset, size, binding, message):
    cmd, blocks = recorder()
    with pytest.raises(CompileError, match=message):
        getattr(cmd, method)(blocks, binding, offset, size)


def test_a_range_needs_a_buffer():
    cmd, _ = recorder()
    texture = cmd.texture("tex", (2, 2))
    with pytest.raises(CompileError, match="tex"):
        cmd.bind_uniform_range(texture, 0, 0, 16)


@pytest.mark.parametrize("groups", [(65536, 1, 1), (1, 70000, 1), (1, 1, 2**32 - 1)])
def test_a_dispatch_beyond_gl_group_counts_is_refused(groups):
    cmd = CommandBuffer()
    with pytest.raises(CompileError, match=r"is not an integer in 0\.\.65535"):
        cmd.dispatch(*groups)
