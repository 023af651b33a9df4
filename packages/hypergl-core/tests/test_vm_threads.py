"""submit() releases the GIL and stops promptly on Ctrl+C."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time

import pytest

from hypergl.shader_prelude import FULL_SCREEN_VERTEX


@pytest.fixture
def sigint_raises():
    """Python's own SIGINT handler for the test: a process started with SIGINT ignored (a
    background job of a non-interactive shell) would never see the timer's signal, and the
    endless run would never end."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def endless(ctx):
    cmd = ctx.command_buffer()
    cmd.label("top")
    cmd.goto("top")
    cmd.end()
    return cmd


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="needs POSIX signals")
def test_ctrl_c_stops_an_endless_goto_loop(null_ctx, sigint_raises):
    cmd = endless(null_ctx)
    timer = threading.Timer(0.3, os.kill, args=(os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            cmd.submit()
    finally:
        timer.cancel()
    assert time.monotonic() - started < 10


def test_a_python_thread_runs_while_a_long_submit_runs(null_ctx):
    cmd = endless(null_ctx)
    counter = [0]
    done = threading.Event()
    counts_during_submit = []

    def count():
        while not done.is_set():
            counter[0] += 1

    def run():
        # 300 million instructions: long enough to watch the other thread.
        with contextlib.suppress(Exception):
            cmd.submit(budget=300_000_000)

    worker = threading.Thread(target=count)
    worker.start()
    try:
        runner = threading.Thread(target=run)
        runner.start()
        time.sleep(0.05)
        while runner.is_alive():
            counts_during_submit.append(counter[0])
            time.sleep(0.02)
        runner.join()
    finally:
        done.set()
        worker.join()
    assert len(counts_during_submit) >= 2, "the submit ended too quickly to observe"
    assert counts_during_submit[-1] > counts_during_submit[0]


def test_two_threads_submit_to_one_context_safely(null_ctx):
    pipe = null_ctx.pipeline(vertex_shader="v", fragment_shader="f")
    cmd = null_ctx.command_buffer()
    cmd.bind_pipeline(pipe)
    for _ in range(1000):
        cmd.draw(3)
    cmd.end()
    results = []

    def run():
        for _ in range(50):
            results.append(cmd.submit().draws)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [1000] * 200


HEAVY_FRAGMENT = """#version 430
layout(location = 0) uniform int n;
out vec4 color;
void main() {
    float x = gl_FragCoord.x;
    for (int i = 0; i < n; ++i) x = fract(x * 1.0001 + 0.1);
    color = vec4(x, 0.0, 0.0, 1.0);
}
"""


@pytest.mark.gl
@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="needs POSIX signals")
@pytest.mark.parametrize("wait", ["load", "fence"])
def test_ctrl_c_during_a_long_gpu_wait_stops_the_run(gl_ctx, sigint_raises, wait):
    """Issue 17: SIGINT during a long draw was not honoured until the run ended.

    A slow draw, then a `load` that waits for the GPU (or a fence signalled and waited
    for), then a `store` of a marker: Ctrl+C must stop the run as soon as the driver
    returns (during the draw, inside the fence's flush, which Mesa 20.3's llvmpipe ends
    only with the frame, or between slices of the wait), so the marker is never written.
    """
    fb = gl_ctx.framebuffer((256, 256), depth=None)
    pipe = gl_ctx.pipeline(vertex_shader=FULL_SCREEN_VERTEX, fragment_shader=HEAVY_FRAGMENT)
    data = gl_ctx.buffer(size=16)
    marker = gl_ctx.buffer(size=16)
    fence = gl_ctx.fence()

    def heavy(iterations):
        cmd = gl_ctx.command_buffer()
        cmd.bind_framebuffer(fb)
        cmd.bind_pipeline(pipe)
        cmd.uniform_const(0, iterations, "int")
        cmd.draw(3)
        if wait == "load":
            cmd.load(0, data, 0)  # waits for the draw: the GPU wrote since the CPU synchronised
        else:
            cmd.fence_signal(fence)
            cmd.fence_wait(fence, 4_000_000_000)
        cmd.li(1, 1)
        cmd.store(1, marker, 0)
        cmd.end()
        return cmd

    started = time.monotonic()
    heavy(2000).submit()
    per_iteration = max(time.monotonic() - started, 1e-4) / 2000
    iterations = int(min(2.0 / per_iteration, 50_000_000))  # about 2 s of GPU work
    marker.write(bytes(16))
    cmd = heavy(iterations)
    timer = threading.Timer(0.3, os.kill, args=(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        cmd.submit()
        interrupted = False
    except KeyboardInterrupt:
        interrupted = True
    finally:
        timer.cancel()
    with contextlib.suppress(KeyboardInterrupt):
        time.sleep(0.5)  # absorbs a signal that came after the run (the old behaviour)
    gl_ctx.finish()
    assert bytes(marker.read()[:4]) == bytes(4), "the run went on after Ctrl+C"
    assert interrupted
    again = heavy(1)  # the context still works
    again.submit()
    assert bytes(marker.read()[:4]) == b"\x01\x00\x00\x00"
