"""Any thread may use a gl context, one at a time: every result checked on real GL."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import hypergl

pytestmark = pytest.mark.gl

GREEN = [0, 255, 0, 255]


def on_thread(function, *args):
    """Run `function(*args)` on a new thread; return its result or raise its exception."""
    outcome = {}

    def run():
        try:
            outcome["value"] = function(*args)
        except BaseException as exc:  # handed back to the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def clear_and_read(ctx, fb, rgba):
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear(color=rgba)
    cmd.end()
    cmd.submit()
    return fb.read()


def test_the_issue_repro_a_second_thread_submits_and_reads_green():
    ctx = hypergl.context()
    try:
        fb = ctx.framebuffer((8, 8))
        pixels = on_thread(clear_and_read, ctx, fb, (0, 1, 0, 1))
        assert pixels[0, 0].tolist() == GREEN
        assert (pixels == pixels[0, 0]).all()
    finally:
        ctx.close()


def test_create_map_submit_read_release_and_close_from_a_second_thread():
    ctx = hypergl.context()  # made here, used and closed only there

    def work():
        fb = ctx.framebuffer((4, 4))
        values = ctx.buffer(size=256).map(np.uint32)
        values[:] = np.arange(64, dtype=np.uint32)
        assert values[:4].tolist() == [0, 1, 2, 3]
        first = clear_and_read(ctx, fb, (1, 0, 0, 1))[0, 0].tolist()
        ctx.release(fb)
        assert len(ctx.live_objects()) == 1
        ctx.check_errors()
        ctx.close()
        return first

    assert on_thread(work) == [255, 0, 0, 255]
    assert ctx.closed


def test_a_context_made_on_a_worker_thread_is_used_on_the_main_thread():
    ctx = on_thread(hypergl.context)
    try:
        assert clear_and_read(ctx, ctx.framebuffer((2, 2)), (0, 0, 1, 1))[1, 1].tolist() == [
            0, 0, 255, 255]  # fmt: skip
    finally:
        ctx.close()


def test_alternating_threads_each_see_the_last_frame(gl_ctx):
    fb = gl_ctx.framebuffer((4, 4))
    colours = [(1, 0, 0, 1), (0, 1, 0, 1), (0, 0, 1, 1), (1, 1, 1, 1)]
    for round_ in range(12):
        rgba = colours[round_ % 4]
        expected = [round(c * 255) for c in rgba]
        if round_ % 2:
            pixels = on_thread(clear_and_read, gl_ctx, fb, rgba)
        else:
            pixels = clear_and_read(gl_ctx, fb, rgba)
        assert pixels[3, 3].tolist() == expected, round_
        # What one thread drew, the other reads.
        assert on_thread(fb.read)[0, 0].tolist() == expected


def test_a_thread_pool_shares_one_context(gl_ctx):
    def job(i):
        fb = gl_ctx.framebuffer((4, 4))  # its own: a submit and a read are two calls
        grey = (i % 250) / 255
        pixels = clear_and_read(gl_ctx, fb, (grey, grey, grey, 1))
        gl_ctx.release(fb)
        return i, pixels[2, 2].tolist()

    with ThreadPoolExecutor(max_workers=4) as pool:
        for i, pixel in pool.map(job, range(40)):
            assert pixel == [i % 250] * 3 + [255], i


def test_stress_threads_with_their_own_resources_on_one_context(gl_ctx):
    """Threads create, map, draw into, read and release their own objects at once."""
    errors = []
    barrier = threading.Barrier(4)

    def worker(seed):
        try:
            barrier.wait()
            for step in range(15):
                level = (seed * 40 + step) % 256
                fb = gl_ctx.framebuffer((3, 3), depth=None)
                words = gl_ctx.buffer(size=64).map(np.uint32)
                words[:] = level
                pixels = clear_and_read(gl_ctx, fb, (level / 255, 0, 0, 1))
                if pixels[1, 1].tolist() != [level, 0, 0, 255] or words[15] != level:
                    errors.append((seed, step, pixels[1, 1].tolist()))
                gl_ctx.release(fb)
        except BaseException as exc:
            errors.append((seed, repr(exc)))

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_two_contexts_on_two_threads_at_once():
    contexts = [hypergl.context(), hypergl.context()]
    results = {}

    def worker(i):
        fb = contexts[i].framebuffer((4, 4))
        rgba = (1, 0, 0, 1) if i == 0 else (0, 0, 1, 1)
        results[i] = [clear_and_read(contexts[i], fb, rgba)[0, 0].tolist() for _ in range(20)]

    try:
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert results[0] == [[255, 0, 0, 255]] * 20
        assert results[1] == [[0, 0, 255, 255]] * 20
    finally:
        for ctx in contexts:
            ctx.close()


def test_a_closed_context_raises_on_any_thread():
    ctx = hypergl.context()
    ctx.close()
    with pytest.raises(hypergl.ContextError, match="closed"):
        on_thread(ctx.framebuffer, (4, 4))
