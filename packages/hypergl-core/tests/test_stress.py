"""Thread stress and a resource soak, short enough for every run of the suite.

Run longer by hand with HYPERGL_STRESS=N (a multiplier of the iteration counts).
They also run under ``python3 tools/dev.py test --sanitize``, where a use after
free or an overflow in the engine ends the run.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import hypergl
from hypergl import ResourceError

SCALE = int(os.environ.get("HYPERGL_STRESS", "1"))


def resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_threads_submit_record_and_release_on_one_context(trace_ctx):
    """Eight threads at once: programs submitted, buffers made, written, read, released."""
    pipe = trace_ctx.pipeline(vertex_shader="v", fragment_shader="f")
    shared = trace_ctx.buffer(np.zeros(64, np.uint32))
    errors: list[BaseException] = []

    def work(seed: int) -> int:
        rng = np.random.default_rng(seed)
        draws = 0
        for _ in range(200 * SCALE):
            count = int(rng.integers(1, 50))
            cmd = trace_ctx.command_buffer()
            sc = hypergl.SceneCompiler(cmd)
            cmd.bind_pipeline(pipe)
            with sc.loop(0, count):
                cmd.draw(3)
            cmd.store(1, shared, 4 * (seed % 64))
            cmd.end()
            stats = cmd.submit(registers={1: seed})
            assert stats.draws == count
            draws += count
            own = trace_ctx.buffer(np.full(16, seed, np.uint32))
            assert (own.map(np.uint32) == seed).all()
            own.release()
            with pytest.raises(ResourceError):
                own.map()
        return draws

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(work, seed) for seed in range(8)]
        for future in futures:
            try:
                assert future.result() > 0
            except BaseException as exc:  # collected so that every thread is joined
                errors.append(exc)
    assert not errors, errors
    assert shared.map(np.uint32)[:8].tolist() == list(range(8))
    trace_ctx.trace.clear()


@pytest.mark.gl
def test_threads_with_their_own_gl_contexts_draw_their_own_colours():
    """Each thread makes, uses and closes its own context; every frame is checked."""
    failures: list[str] = []

    def work(index: int) -> None:
        colour = (index * 40, 255 - index * 40, 128, 255)
        with hypergl.context() as ctx:
            fb = ctx.framebuffer((8, 8), depth=None)
            cmd = ctx.command_buffer()
            cmd.bind_framebuffer(fb)
            cmd.clear(color=[c / 255 for c in colour])
            cmd.end()
            for frame in range(100 * SCALE):
                cmd.submit()
                got = fb.read()[4, 4].tolist()
                if got != list(colour):
                    failures.append(f"thread {index} frame {frame}: {got} != {list(colour)}")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures[:5]


@pytest.mark.gl
def test_a_gl_context_draws_from_another_thread(gl_ctx):
    fb = gl_ctx.framebuffer((8, 8), depth=None)
    seen = []

    def draw():
        cmd = gl_ctx.command_buffer()
        cmd.bind_framebuffer(fb)
        cmd.clear(color=(0, 1, 0, 1))
        cmd.end()
        cmd.submit()
        seen.append(fb.read()[0, 0].tolist())

    thread = threading.Thread(target=draw)
    thread.start()
    thread.join()
    assert seen == [[0, 255, 0, 255]]


@pytest.mark.gl
def test_resource_soak_returns_to_where_it_started(gl_ctx):
    """Make, use and release every kind of resource many times: nothing stays behind."""
    vertex = "#version 430\nvoid main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); }\n"
    fragment = "#version 430\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n"
    pipe = gl_ctx.pipeline(vertex_shader=vertex, fragment_shader=fragment, topology="points")
    baseline = None

    def cycle(i: int) -> None:
        buffer = gl_ctx.buffer(np.arange(256, dtype=np.uint32) + i)
        texture = gl_ctx.texture(np.full((8, 8, 4), i % 256, np.uint8))
        fb = gl_ctx.framebuffer((16, 16))
        fence = gl_ctx.fence()
        cmd = gl_ctx.command_buffer()
        cmd.bind_framebuffer(fb)
        cmd.clear(color=(0, 0, 0, 1))
        cmd.bind_pipeline(pipe)
        cmd.bind_texture(texture, 0)
        cmd.bind_storage_buffer(buffer, 0)
        cmd.draw(1)
        cmd.fence_signal(fence)
        cmd.end()
        cmd.submit()
        assert fence.wait(5.0)
        assert buffer.map(np.uint32)[3] == 3 + i
        for resource in (buffer, texture, fb, fence):
            resource.release()

    for i in range(50):  # warm up: the driver's caches and pools settle
        cycle(i)
    baseline = resident_bytes()
    live = len(gl_ctx.live_objects())
    for i in range(2000 * SCALE):
        cycle(i)
    gl_ctx.check_errors()
    assert len(gl_ctx.live_objects()) == live
    if os.environ.get("HYPERGL_SANITIZED"):
        return  # AddressSanitizer keeps freed memory in quarantine: RSS says nothing there
    grown = resident_bytes() - baseline
    assert grown < 32 << 20, f"resident memory grew by {grown / 2**20:.1f} MiB over the soak"
