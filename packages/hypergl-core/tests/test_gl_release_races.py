"""A use of a resource racing its release on another thread: never a crash.

Every native entry point checks a resource's state under the context's lock,
the lock that release takes, so the use either runs before the release or
raises ResourceError after it. Each test loops many short rounds (the race
segfaulted within a few hundred before the fix).
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import hypergl
from hypergl import ResourceError

pytestmark = pytest.mark.gl

ROUNDS = 150


def race(use, release):
    """Run `use()` in a loop on a second thread until it raises ResourceError, while
    this thread calls `release()` once; returns how many uses succeeded."""
    started = threading.Event()
    outcome: dict = {"uses": 0}

    def loop():
        try:
            while True:
                use()
                outcome["uses"] += 1
                started.set()
        except ResourceError:
            pass
        except BaseException as exc:  # anything else is a failure of the test
            outcome["error"] = exc
        finally:
            started.set()

    thread = threading.Thread(target=loop)
    thread.start()
    started.wait(5)
    release()
    thread.join(10)
    assert not thread.is_alive()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["uses"]


def captured_ring(ctx, fb):
    ring = ctx.readback(fb, depth=2)
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=(0, 1, 0, 1))
    cmd.read_framebuffer(ring, fb)
    cmd.end()
    cmd.submit()
    return ring


@pytest.mark.parametrize("how", ["resource", "all"])
def test_a_readback_read_racing_its_release_raises_resource_error(how):
    ctx = hypergl.context()
    try:
        fb = ctx.framebuffer((4, 4), depth=None)
        out = np.empty((4, 4, 4), np.uint8)
        for _ in range(ROUNDS):
            ring = captured_ring(ctx, fb)
            race(lambda ring=ring: ring.read(lag=0, into=out),
                 ring.release if how == "resource" else lambda: ctx.release("all"))  # fmt: skip
            if how == "all":
                fb = ctx.framebuffer((4, 4), depth=None)
        with pytest.raises(ResourceError, match="has been released"):
            ring.read(lag=0)
    finally:
        ctx.close()


def test_framebuffer_reads_and_texture_writes_racing_a_release_raise_resource_error():
    ctx = hypergl.context()
    try:
        pixels = np.zeros((4, 4, 4), np.uint8)
        for _ in range(ROUNDS // 3):
            fb = ctx.framebuffer((4, 4), depth=None)
            reader = fb.reader(np.empty((4, 4, 4), np.uint8))
            race(reader.read, fb.release)
            texture = ctx.texture(pixels)
            race(lambda texture=texture: texture.write(pixels), texture.release)
            fence = ctx.fence()
            race(lambda fence=fence: fence.wait(0), fence.release)
    finally:
        ctx.close()


def test_mapping_a_buffer_racing_its_release_raises_resource_error_and_arrays_stay_valid():
    ctx = hypergl.context()
    try:
        arrays = []
        for _ in range(ROUNDS):
            buffer = ctx.buffer(size=64)

            def use(buffer=buffer):
                array = buffer.map(np.uint32)
                array[:] = 7  # the array keeps the memory: writes after a release are safe
                arrays.append(array)

            race(use, buffer.release)
        assert all((array == 7).all() for array in arrays[-10:])
        for array in arrays[-10:]:
            array[:] = 9
    finally:
        ctx.close()
