"""Bad values thrown at the public API: every call raises or works, none crashes.

A crash would take the whole test process down, so this test passing means no
segfault and no abort for any of these argument combinations.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

import hypergl

pytestmark = pytest.mark.gl

ODD_VALUES = [
    None, -1, 0, 1, 3, 7, 64, 2**31, 2**40, -(2**63), 1.5, float("nan"), float("inf"), "x",
    "", b"\x00" * 3, [], [1, 2], (4, 4), (0, 4), (-1, 2), {}, object(),
    np.zeros(0, np.uint8), np.zeros((2, 2, 4), np.uint8), np.zeros((3, 3, 3), np.float64),
    np.zeros((2, 2, 4), np.float32)[::2], np.array(["a"], object), np.float32(2.0),
]  # fmt: skip


def calls(ctx, fb, buf, tex, pipe):
    cmd = ctx.command_buffer()
    ended = ctx.command_buffer()
    ended.bind_framebuffer(fb)
    ended.end()
    ring = ctx.readback(fb)
    fence = ctx.fence()
    return [
        lambda v: ended.submit(registers=v), lambda v: ended.submit(budget=v),
        lambda v: ended.submit(bindings=v), lambda v: ended.prepare(registers=v).submit(),
        lambda v: ctx.upload(v, buf), lambda v: fence.wait(v), lambda v: ring.read(v),
        lambda v: ring.read(0, v),
        ctx.buffer, lambda v: ctx.buffer(size=v), lambda v: ctx.buffer(v, usage=v),
        ctx.texture, lambda v: ctx.texture(size=v), lambda v: ctx.texture(v, format=v),
        ctx.texture_set, ctx.framebuffer, lambda v: ctx.framebuffer((4, 4), color=v),
        lambda v: ctx.framebuffer((4, 4), depth=v), lambda v: ctx.readback(v),
        lambda v: ctx.readback(fb, depth=v), lambda v: ctx.readback(fb, components=v),
        lambda v: ctx.pipeline(vertex_shader=v), lambda v: ctx.pipeline(compute_shader=v),
        lambda v: ctx.pipeline(vertex_shader="#version 430\\nvoid main(){}", topology=v),
        lambda v: ctx.pipeline(vertex_shader="#version 430\\nvoid main(){}", vertex_layout=v),
        lambda v: ctx.external_source(v, [{"source": 0, "type": "f32", "stride": 4}],
                                      record_size=4),
        lambda v: ctx.external_source(lambda: (), v, record_size=4),
        lambda v: ctx.external_source(lambda: (), [{"type": "f32", "stride": v}],
                                      record_size=v),
        ctx.release, lambda v: buf.map(v), lambda v: buf.map(np.uint8, v), buf.write,
        lambda v: buf.write(b"ab", v), lambda v: fb.read(v), lambda v: fb.read(rect=v),
        lambda v: fb.read(components=v), lambda v: fb.read(attachment=v),
        lambda v: fb.read(origin=v), lambda v: fb.reader(v), tex.write,
        lambda v: cmd.draw(v), lambda v: cmd.bind_vertex_buffer(buf, v),
        lambda v: cmd.bind_texture(v), lambda v: cmd.bind_pipeline(v),
        lambda v: cmd.li(v, v), lambda v: cmd.load(0, buf, v), lambda v: cmd.clear(color=v),
        lambda v: cmd.viewport(v, v, v, v), lambda v: cmd.uniform_const(0, v, "vec4"),
        lambda v: cmd.copy_buffer(buf, buf, v),
        lambda v: hypergl.context(device=v), lambda v: hypergl.context(device="trace", window=v),
        lambda v: ctx.bridge(v, v), lambda v: ctx.load(v), hypergl.verify,
        lambda v: pipe.release() if v == 3 else None,
    ]  # fmt: skip


def test_odd_values_never_crash(gl_ctx):
    fb = gl_ctx.framebuffer((8, 8))
    buf = gl_ctx.buffer(size=64)
    tex = gl_ctx.texture(np.zeros((2, 2, 4), np.uint8))
    pipe = gl_ctx.pipeline(
        vertex_shader="#version 430\nvoid main(){ gl_Position = vec4(0); }",
        fragment_shader="#version 430\nout vec4 c; void main(){ c = vec4(1); }",
    )
    outcomes = {"ok": 0, "raised": 0}
    for call, value in itertools.product(calls(gl_ctx, fb, buf, tex, pipe), ODD_VALUES):
        try:
            call(value)
            outcomes["ok"] += 1
        except Exception:
            outcomes["raised"] += 1
    assert outcomes["raised"] > outcomes["ok"] > 0


def test_random_programs_on_the_gl_device_never_crash(gl_ctx):
    """Random but verified programs over real resources: VMError or success, no crash."""
    from hypergl_compiler import isa

    rng = random.Random(11)
    fb = gl_ctx.framebuffer((8, 8))
    buf = gl_ctx.buffer(np.arange(64, dtype=np.uint32), usage="vertex")
    pipe = gl_ctx.pipeline(
        vertex_shader="#version 430\nvoid main(){ gl_Position = vec4(0); }",
        fragment_shader="#version 430\nout vec4 c; void main(){ c = vec4(1); }",
    )
    names = [
        op.name
        for op in isa.OPS
        if op.name not in ("upload", "fence_wait", "fence_signal", "read_framebuffer", "jump_table")
    ]
    survived = 0
    for _ in range(300):
        cmd = gl_ctx.command_buffer()
        cmd.bind_framebuffer(fb)
        cmd.bind_pipeline(pipe)
        for _ in range(rng.randrange(1, 12)):
            name = rng.choice(names)
            op = isa.BY_NAME[name]
            args = []
            for kind in op.operands:
                if kind is isa.Operand.BUFFER:
                    args.append(buf)
                elif kind is isa.Operand.PIPELINE:
                    args.append(pipe)
                elif kind is isa.Operand.FRAMEBUFFER:
                    args.append(fb)
                else:
                    args.append(rng.choice([0, 1, 2, 3, 4, 7, 8, 100, 2**31]))
            try:
                cmd.emit(name, *args)
            except Exception:
                continue
        try:
            cmd.end()
            cmd.submit(budget=10_000)
            survived += 1
        except Exception:
            pass
    assert survived > 0
