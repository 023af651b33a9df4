"""submit() releases the GIL and stops promptly on Ctrl+C."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time

import pytest


def endless(ctx):
    cmd = ctx.command_buffer()
    cmd.label("top")
    cmd.goto("top")
    cmd.end()
    return cmd


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="needs POSIX signals")
def test_ctrl_c_stops_an_endless_goto_loop(null_ctx):
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
