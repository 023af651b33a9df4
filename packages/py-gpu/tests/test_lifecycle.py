"""Closing a backend and failed frames: py_gpu's own errors, every time, on every backend."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import py_gpu
from py_gpu import backends
from py_gpu.backends.lifecycle import GUARDED
from py_gpu.errors import BackendClosedError
from py_gpu.readback import PendingFrame, Ring

W, H = 32, 24


@pytest.fixture
def own_instance(monkeypatch):
    """``start(name)``: a backend of the registry's own, without closing the shared one the
    other tests use (the registry's entry is put back afterwards)."""
    started = []

    def start(name: str):
        monkeypatch.delitem(backends._instances, name, raising=False)
        backend = py_gpu.select_backend(name)
        started.append(backend)
        return backend

    yield start
    for backend in started:
        backend.close()


def test_select_backend_after_close_starts_a_new_one(backend, own_instance, make_batch):
    name = backend.name  # the shared instance (other tests') is left open
    first = own_instance(name)
    batch = make_batch(np.random.default_rng(0), 20, W, H)
    expected = first.render(batch, W, H).pixels
    first.close()
    assert first.closed
    second = py_gpu.select_backend(name)
    assert second is not first and not second.closed
    assert second.render(batch, W, H).pixels == expected
    second.close()


def test_a_closed_backend_raises_py_gpus_error_naming_it(backend, own_instance, make_batch):
    backend = own_instance(backend.name)
    batch = make_batch(np.random.default_rng(1), 20, W, H)
    handle = backend.upload(batch) if hasattr(backend, "upload") else None
    backend.close()
    backend.close()  # a second close is harmless
    calls = {
        "render": lambda: backend.render(batch, W, H),
        "render_async": lambda: backend.render_async(batch, W, H),
        "rasterize_ids": lambda: backend.rasterize_ids(batch, W, H),
        "upload": lambda: backend.upload(batch),
    }
    assert set(calls) == set(GUARDED)
    for method, call in calls.items():
        if not hasattr(backend, method):
            continue
        with pytest.raises(BackendClosedError, match=f"'{backend.name}' backend is closed"):
            call()
    if handle is not None:
        handle.release()  # its resources went with the backend: nothing to raise
        assert handle.released


def test_a_failed_frame_raises_its_error_again(backend, own_instance, make_batch):
    if not hasattr(backend, "render_async"):
        pytest.skip(f"{backend.name} renders synchronously")
    backend = own_instance(backend.name)
    pending = backend.render_async(make_batch(np.random.default_rng(2), 20, W, H), W, H)
    backend.close()
    for _ in range(3):  # the same error every time, never None
        with pytest.raises(BackendClosedError, match=f"'{backend.name}' backend is closed"):
            pending.result()
    assert pending.done()


def test_pending_frame_keeps_its_error():
    calls = []

    def finish():
        calls.append(1)
        raise OSError("read failed")

    pending = PendingFrame(finish)
    with pytest.raises(OSError, match="read failed") as first:
        pending.result()
    with pytest.raises(OSError, match="read failed") as second:
        pending.result()
    assert first.value is second.value and len(calls) == 1 and pending.done()


def test_a_ring_slot_reused_after_a_failed_frame():
    # The next frame on that slot is not blamed for the failed one's error.
    ring = Ring(1)
    slot = ring.claim()
    failed = ring.attach(slot, PendingFrame(lambda: 1 / 0))
    assert ring.claim() == slot and failed.done()
    with pytest.raises(ZeroDivisionError):
        failed.result()


def test_an_interrupted_wait_leaves_the_frame_pending():
    frame = py_gpu.FrameBuffer.new(2, 2)
    calls = []

    def finish():
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt  # Ctrl+C while waiting: the frame may still come
        return frame

    pending = PendingFrame(finish)
    with pytest.raises(KeyboardInterrupt):
        pending.result()
    assert not pending.done()
    assert pending.result() is frame and pending.done()


def test_two_threads_waiting_on_one_frame_both_get_it():
    frame = py_gpu.FrameBuffer.new(2, 2)
    entered, release = threading.Event(), threading.Event()

    def finish():
        entered.set()
        release.wait(5)
        return frame

    pending = PendingFrame(finish)
    got: list = []
    first = threading.Thread(target=lambda: got.append(pending.result()))
    first.start()
    assert entered.wait(5)
    second = threading.Thread(target=lambda: got.append(pending.result()))
    second.start()
    second.join(0.05)  # the second waits for the first's read, it does not return None
    release.set()
    first.join(5)
    second.join(5)
    assert got == [frame, frame]
