"""ctx.load within a memory limit: the whole file is checked before anything is made.

Regression of issue 17: a 455-byte file with four 4 GiB buffers made 16 GiB.
"""

from __future__ import annotations

import dataclasses
import resource

import pytest

import hypergl
from hypergl_compiler import CommandBuffer, HGBError, hgb


def four_huge_buffers() -> bytes:
    cmd = CommandBuffer()
    for i in range(4):
        cmd.buffer(f"huge{i}", size=(1 << 32) - 1)
    cmd.halt()
    return hgb.dumps(cmd.end())


def peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


@pytest.mark.parametrize("device", ["trace", "null"])
def test_four_4gib_buffers_are_refused_without_allocating(device, tmp_path):
    path = tmp_path / "huge.hgb"
    path.write_bytes(four_huge_buffers())
    with hypergl.context(device=device) as ctx:
        before = peak_rss_bytes()
        for source in (path, path.read_bytes()):
            with pytest.raises(HGBError, match=r"buffer 'huge\d' of 4294967295 bytes"):
                ctx.load(source)
            with pytest.raises(HGBError, match="memory limit of 1048576 bytes"):
                ctx.load(source, memory_limit=1 << 20)
        assert ctx.live_objects() == []
        assert peak_rss_bytes() - before < 256 << 20


def test_every_kind_counts_and_nothing_is_made_before_the_check():
    cmd = CommandBuffer()
    cmd.buffer("small", size=1024)
    cmd.texture("big", (8192, 8192), "rgba32f")  # 1 GiB of pixels
    cmd.halt()
    data = hgb.dumps(cmd.end())
    with hypergl.context(device="trace") as ctx:
        with pytest.raises(hypergl.ResourceError,
                           match=r"resource 'big' \(texture, 1073741824 bytes\)"):  # fmt: skip
            ctx.load(data, memory_limit=64 << 20)
        assert ctx.live_objects() == []  # 'small' came first in the file, and was not made


def test_a_raised_limit_loads_and_bound_resources_do_not_count():
    cmd = CommandBuffer()
    cmd.buffer("data", size=4096)
    cmd.framebuffer("target", (64, 64), color=["rgba8"], depth="depth24", linked=True)
    cmd.halt()
    data = hgb.dumps(cmd.end())
    with hypergl.context(device="trace") as ctx:
        with pytest.raises(HGBError, match="buffer 'data' of 4096 bytes"):
            ctx.load(data, memory_limit=4000)
        scene = ctx.load(data, memory_limit=5000, bindings={"target": ctx.framebuffer((64, 64))})
        assert scene["data"].size == 4096


@pytest.mark.parametrize("limit", [0, -5, 1.5, "4GB", True])
def test_a_bad_memory_limit_is_named(limit):
    with hypergl.context(device="trace") as ctx, pytest.raises(TypeError, match="memory_limit"):
        ctx.load(four_huge_buffers(), memory_limit=limit)


def test_a_program_that_fails_verification_makes_nothing():
    cmd = CommandBuffer()
    cmd.buffer("data", size=64)
    cmd.halt()
    program = cmd.end()
    bad = program.code[:-16] + bytes([0xEE, 0]) + bytes(14)  # an unknown opcode
    data = hgb.dumps(dataclasses.replace(program, code=bad))
    with hypergl.context(device="trace") as ctx:
        with pytest.raises(hypergl.VerifyError, match="instruction"):
            ctx.load(data)
        assert ctx.live_objects() == []
