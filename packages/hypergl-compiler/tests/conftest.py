"""Shared fixtures of the compiler tests: a scene that uses every kind of construct."""

from __future__ import annotations

import struct

import pytest

from hypergl_compiler import CommandBuffer, SceneCompiler, isa, r0, r1, r2, r3, subroutine


def decoded(program) -> list[tuple]:
    """(mnemonic, a, b, c, d) of every instruction: readable assertions on code."""
    return [
        (isa.BY_CODE[op].name, a, b, c, d)
        for op, a, b, c, d in struct.iter_unpack("<HHIII", program.code)
    ]


@subroutine
def _textured_quad(sc, texture, unit):
    sc.bind_texture(texture, unit)
    sc.draw(6)


def build_scene(linked: bool = False):
    """A program with resources of every kind, constants, labels, a switch and subroutines."""
    cmd = CommandBuffer(metadata={"scene": "test", "author": "compiler tests"})
    sc = SceneCompiler(cmd)
    vbo = cmd.buffer("vbo", data=bytes(range(64)), usage="static")
    flags = cmd.buffer("flags", size=64, linked=linked)
    indirect = cmd.buffer("indirect", size=256)
    pipe = cmd.pipeline(
        "main",
        "#version 430\nvoid main() {}\n",
        "#version 430\nout vec4 c;\nvoid main() { c = vec4(1); }\n",
        vertex_layout=[{"location": 0, "format": "vec3", "offset": 0}],
        topology="triangles",
        depth_test=True,
        blend=None,
    )
    tex = cmd.texture("albedo", (2, 2), "rgba8", data=bytes(16))
    fb = cmd.framebuffer("screen", (64, 64), color=["rgba8"], depth="depth24")
    fence = cmd.fence("frame_done")
    rb = cmd.readback("pixels", (64, 64))
    world = cmd.external_source("world", "culverin", linked=True)

    cmd.bind_framebuffer(fb)
    cmd.clear((0.25, 0.5, 0.75, 1.0))
    cmd.viewport(0, 0, 64, 64)
    cmd.upload(world, flags)
    with sc.loop(r0, 3):
        cmd.bind_pipeline(pipe)
        cmd.bind_vertex_buffer(vbo, 0)
        with sc.condition(flags, 4):
            _textured_quad(sc, tex, 0)
        _textured_quad(sc, tex, 1)
        cmd.uniform_const(2, (1.0, 0.0, 0.0, 1.0), "vec4")
    with sc.switch(r1, 3) as sw:
        with sw.case(0):
            cmd.draw(3)
        with sw.case(2):
            cmd.draw_indexed(6, index_type="u16")
        with sw.default():
            cmd.bind_indirect_buffer(indirect)
            cmd.multi_draw_indirect(4, offset=0, stride=20)
    with sc.scope([r2, r3]):
        cmd.lf(r2, -1.5)
        cmd.li(r3, -7)
        cmd.fadd(r2, r2, r2)
    cmd.copy_buffer(vbo, indirect, 32, src_offset=0, dst_offset=64)
    cmd.fence_signal(fence)
    cmd.fence_wait(fence, 1000)
    cmd.read_framebuffer(rb, fb, "color0")
    cmd.skip_if_zero(flags, 0)
    cmd.halt()
    return cmd.end()


@pytest.fixture
def scene():
    return build_scene()


@pytest.fixture(name="decoded")
def decoded_fixture():
    """The :func:`decoded` helper, for tests (test modules cannot import conftest)."""
    return decoded


@pytest.fixture(name="build_scene")
def build_scene_fixture():
    return build_scene
