"""One name per concept and one exception per mistake across ctx, cmd and sc."""

from __future__ import annotations

import re

import numpy as np
import pytest

import hypergl

BAD_SIZES = [((0, 4), "must be positive"), ((2.5, 4), "must be integers"),
             (7, "(width, height)"), ("big", "(width, height)")]  # fmt: skip


@pytest.mark.parametrize(("size", "message"), BAD_SIZES)
def test_the_same_bad_size_raises_the_same_error_from_ctx_cmd_and_sc(trace_ctx, size, message):
    cmd = trace_ctx.command_buffer()
    sc = hypergl.SceneCompiler(cmd)
    calls = [
        lambda: trace_ctx.texture(size=size),
        lambda: trace_ctx.framebuffer(size),
        lambda: trace_ctx.readback(size),
        lambda: cmd.texture("t", size=size),
        lambda: cmd.framebuffer("f", size),
        lambda: cmd.readback("r", size),
        lambda: sc.texture("t2", size=size),
    ]
    for call in calls:
        with pytest.raises(hypergl.ArgumentError, match=re.escape(message)) as info:
            call()
        assert isinstance(info.value, ValueError)
    assert trace_ctx.live_objects() == []


def test_ctx_and_cmd_spell_textures_and_external_sources_alike(trace_ctx):
    cmd = trace_ctx.command_buffer()
    live = trace_ctx.texture(size=(4, 2))
    declared = cmd.texture("declared", size=(4, 2), format="rgba8")
    assert live.size == (4, 2)
    desc = cmd.resources[declared.slot].desc
    assert (desc["width"], desc["height"]) == (4, 2)
    source = trace_ctx.external_source(
        lambda: [np.zeros(3, np.float32)], [{"type": "f32", "stride": 4}], record_size=4
    )
    world = cmd.external_source("world", "physics", linked=True)
    buffer = trace_ctx.buffer(size=16)
    cmd.upload(world, buffer)
    cmd.upload(source, buffer)
    cmd.end()
    cmd.submit(bindings={"world": source, "declared": live})
