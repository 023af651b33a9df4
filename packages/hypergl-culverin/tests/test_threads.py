"""Physics on one thread, rendering on another: the handshake keeps every frame whole."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import hypergl
from hypergl_culverin import BodyRenderer

pytestmark = pytest.mark.culverin


def falling_world(make_world, bridge_options, ctx, bodies=64):
    """Bodies in free fall from one height: in any whole frame all their y are equal."""
    world = make_world(floor=False)
    for i in range(bodies):
        world.create_body(pos=(3.0 * (i % 8), 100.0, 3.0 * (i // 8)), size=0.5,
                          shape=i % 2, user_data=i + 1)  # fmt: skip
    return world, ctx.bridge("culverin", world, **bridge_options)


@pytest.mark.gl
def test_physics_thread_and_render_thread_see_no_torn_frame(gl_ctx, make_world):
    _world, bridge = falling_world(make_world, {"capacity": 128}, gl_ctx)
    renderer = BodyRenderer(bridge)
    fb = gl_ctx.framebuffer((32, 32))
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.clear()
    renderer.record(cmd)  # upload inside submit(), then the instanced draws
    cmd.end()
    bursts, steps, errors = 4, 100, []
    progress = threading.Condition()
    finished = seen = 0  # bursts the physics finished / finished before a frame began

    def physics():
        # Bursts of steps that overlap the renders; after each burst the physics waits
        # for a frame that began after it, so that even on a loaded machine the frames
        # see the physics advance (the overlap, not the schedule, is under test).
        nonlocal finished
        try:
            for burst in range(1, bursts + 1):
                for _ in range(steps):
                    bridge.step(1 / 240)
                with progress:
                    finished = burst
                    progress.wait_for(lambda b=burst: seen >= b, timeout=30)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    thread = threading.Thread(target=physics)
    frames = []
    thread.start()
    try:
        while thread.is_alive() or not frames:
            with progress:
                before = finished
            cmd.submit()
            y = bridge.records()["position"][:, 1]
            assert len(y) == 64
            assert (y == y[0]).all(), f"torn frame: {np.unique(y)}"
            frames.append(float(y[0]))
            with progress:
                seen = max(seen, before)
                progress.notify_all()
    finally:
        thread.join()
    assert not errors
    assert frames == sorted(frames, reverse=True)  # time only moves forward
    assert len(set(frames)) >= bursts  # physics really advanced between renders
    cmd.submit()
    assert bridge.records()["position"][0, 1] < frames[0]


def test_sync_waits_while_a_step_holds_the_lock(make_world):
    """The handshake itself: a sync started during ``stepping()`` completes only after it."""
    ctx = hypergl.context(device="trace")
    try:
        world, bridge = falling_world(make_world, {"capacity": 128}, ctx, bodies=4)
        done = threading.Event()

        def render():
            bridge.sync()
            done.set()

        worker = threading.Thread(target=render)
        with bridge.stepping():
            worker.start()
            assert not done.wait(0.2)  # blocked on the lock, not finished
            world.step(1 / 60)
        worker.join(10)
        assert done.is_set()
        y = np.frombuffer(world.positions, np.float64).reshape(-1, 4)[:, 1]
        assert np.array_equal(bridge.records()["position"][:, 1], y.astype(np.float32))
    finally:
        ctx.close()


def test_sync_inside_stepping_on_the_same_thread_does_not_deadlock(make_world):
    ctx = hypergl.context(device="trace")
    try:
        world, bridge = falling_world(make_world, {"capacity": 8}, ctx, bodies=4)
        with bridge.stepping():
            world.step(1 / 60)
            assert bridge.sync() == 4
    finally:
        ctx.close()


CLOSE_RACE = """
import sys
import culverin
import hypergl
from hypergl.testing import draw_bodies, race_close
from hypergl_culverin import BodyRenderer

seen = set()
for _ in range(int(sys.argv[1])):
    ctx = hypergl.context()
    world = culverin.PhysicsWorld(settings={"max_bodies": 64})
    for i in range(32):
        world.create_body(pos=(2.0 * i, 5.0, 0.0), size=0.5, shape=i % 2, user_data=i + 1)
    bridge = ctx.bridge("culverin", world, capacity=64)
    renderer = BodyRenderer(bridge)
    fb = renderer.framebuffer((16, 16))
    # The renderer first (it draws the bridge's records), then the bridge.
    for uses, close in (([lambda: draw_bodies(renderer, fb), renderer.update], renderer.release),
                        ([bridge.sync, bridge.sync], bridge.release)):
        ended = race_close(uses, close)
        foreign = [repr(e) for e in ended if not isinstance(e, hypergl.HyperGLError)]
        assert not foreign, foreign
        seen.update(type(e).__name__ for e in ended)
    ctx.close()
print(sorted(seen))
"""


@pytest.mark.gl
def test_a_release_racing_syncs_and_frames_ends_them_with_our_error():
    from hypergl.testing import run_isolated

    out = run_isolated(CLOSE_RACE, "10")
    assert "BridgeReleasedError" in out and "ResourceError" in out
