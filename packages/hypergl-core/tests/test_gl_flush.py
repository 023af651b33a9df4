"""ctx.flush(): start the GPU on what was submitted, return without waiting."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import hypergl


def clear_to(ctx, fb, color):
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=color)
    cmd.end()
    cmd.submit()


@pytest.mark.gl
def test_a_flushed_frame_reads_back_later(gl_ctx):
    fb = gl_ctx.framebuffer((8, 8))
    clear_to(gl_ctx, fb, (0, 1, 0, 1))
    gl_ctx.flush()
    assert (fb.read()[..., :3] == [0, 255, 0]).all()


@pytest.mark.gl
def test_flush_from_another_thread_than_the_submit(gl_ctx):
    fb = gl_ctx.framebuffer((8, 8))
    clear_to(gl_ctx, fb, (0, 0, 1, 1))
    worker = threading.Thread(target=gl_ctx.flush)
    worker.start()
    worker.join()
    np.testing.assert_array_equal(fb.read()[0, 0], [0, 0, 255, 255])


@pytest.mark.parametrize("device", ["trace", "null"])
def test_flush_without_a_gpu_does_nothing(device):
    ctx = hypergl.context(device=device)
    ctx.flush()
    ctx.close()


def test_flush_on_a_closed_context_is_refused():
    ctx = hypergl.context(device="trace")
    ctx.close()
    with pytest.raises(hypergl.ContextError, match="closed"):
        ctx.flush()
