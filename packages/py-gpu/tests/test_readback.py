"""Frames requested without waiting (render_async, PendingFrame, stream) on every backend."""

from __future__ import annotations

import numpy as np
import pytest

import py_gpu
from py_gpu.errors import InvalidSizeError, TargetSizeError
from py_gpu.readback import PendingFrame, Ring, render_async, stream

W, H = 64, 48


def _batches(make_batch, count):
    return [make_batch(np.random.default_rng(seed), 60, W, H) for seed in range(count)]


def test_async_frames_equal_sync_frames(backend, make_batch):
    batches = _batches(make_batch, 7)
    expected = [backend.render(b, W, H, background=(4, 5, 6)).pixels for b in batches]
    # More frames pending than any ring holds: each still comes back right.
    pending = [render_async(backend, b, W, H, background=(4, 5, 6)) for b in batches]
    assert [p.result().pixels for p in reversed(pending)] == expected[::-1]
    assert all(p.done() for p in pending)
    assert pending[0].result() is pending[0].result()  # result() is computed once


def test_stream_yields_frames_in_order(backend, make_batch):
    batches = _batches(make_batch, 5)
    expected = [backend.render(b, W, H).pixels for b in batches]
    for in_flight in (1, 2, 3, 5):
        got = [frame.pixels for frame in stream(backend, batches, W, H, in_flight=in_flight)]
        assert got == expected, in_flight


def test_render_async_into_target_and_bad_input(backend, make_batch):
    if not backend.capabilities.supports_async_readback:
        pytest.skip(f"{backend.name} renders synchronously")
    batch = make_batch(np.random.default_rng(3), 40, W, H)
    target = py_gpu.FrameBuffer.new(W, H)
    assert backend.render_async(batch, W, H, target=target).result() is target
    assert target.pixels == backend.render(batch, W, H).pixels
    with pytest.raises(TargetSizeError):
        backend.render_async(batch, W, H + 1, target=target)
    with pytest.raises(InvalidSizeError):
        backend.render_async(batch, 0, H)
    with pytest.raises(TypeError):
        backend.render_async([batch], W, H)


def test_async_renders_persistent_handles(backend, make_batch):
    if not hasattr(backend, "upload") or not hasattr(backend, "render_async"):
        pytest.skip(f"{backend.name} has no upload/render_async")
    batch = make_batch(np.random.default_rng(4), 80, W, H)
    handle = backend.upload(batch)
    try:
        frames = list(stream(backend, [handle] * 4, W, H, in_flight=3))
        assert all(f.pixels == backend.render(batch, W, H).pixels for f in frames)
    finally:
        handle.release()


@pytest.mark.parametrize("bad", [0, 17, -1, 2.0, True, "2"])
def test_bad_frames_in_flight(bad):
    cpu = py_gpu.select_backend("cpu")
    with pytest.raises(InvalidSizeError, match="in_flight"):
        list(stream(cpu, [], W, H, in_flight=bad))
    with pytest.raises(InvalidSizeError, match=repr(bad)):
        Ring(bad)


def test_pending_frame_ready():
    frame = py_gpu.FrameBuffer.new(2, 2)
    pending = PendingFrame.ready(frame)
    assert pending.done() and pending.result() is frame
