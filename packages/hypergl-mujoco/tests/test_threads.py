"""``BatchRenderer`` from several threads, and the worlds a bound list holds (issue 36: items
1 and 8): renders take turns and each draws its own worlds; a close racing renders ends them
with RendererClosedError; a world replaced in the bound list is the world drawn."""

from __future__ import annotations

import threading

import mujoco
import numpy as np
import pytest

import hypergl
from hypergl.testing import run_isolated
from hypergl_mujoco import BatchRenderer, RendererClosedError

from .models import all_geoms

pytestmark = pytest.mark.gl

SIZE = dict(width=24, height=24, cameras=["fixed"])


def world(model: mujoco.MjModel, shift: float) -> mujoco.MjData:
    """An MjData whose free body (the torso and its geoms) is moved by `shift` along x."""
    data = mujoco.MjData(model)
    data.qpos[0] += shift
    mujoco.mj_forward(model, data)
    return data


def test_a_world_replaced_in_the_bound_list_is_the_world_drawn():
    # A gymnasium env that makes a fresh MjData on reset puts it in the list it renders.
    model = all_geoms()
    worlds = [world(model, 0.0), world(model, 0.0)]
    moved = world(model, 0.6)
    with BatchRenderer(model, num_worlds=2, **SIZE) as renderer:
        before = renderer.render(worlds)
        worlds[0] = moved
        after = renderer.render(worlds)
    with BatchRenderer(model, num_worlds=2, **SIZE) as fresh:
        expected = fresh.render([moved, worlds[1]])
    assert not np.array_equal(before.segmentation[0], expected.segmentation[0])  # it moved
    assert np.array_equal(after.segmentation, expected.segmentation)
    np.testing.assert_allclose(after.depth, expected.depth, rtol=1e-5)
    assert np.array_equal(after.segmentation[1], before.segmentation[1])


def test_other_worlds_get_sources_of_their_own_and_nothing_is_left_behind():
    model = all_geoms()
    first = [world(model, 0.0), world(model, 0.3)]
    second = [world(model, -0.3), world(model, 0.5)]
    ctx = hypergl.context()
    try:
        renderer = BatchRenderer(model, num_worlds=2, context=ctx, **SIZE)
        renderer.render(first)
        live = len(ctx.live_objects())
        a = renderer.render(second)
        b = renderer.render(first)
        assert len(ctx.live_objects()) == live  # the previous sources were released
        assert not np.array_equal(a.segmentation, b.segmentation)
        renderer.close()
        assert ctx.live_objects() == []
    finally:
        ctx.close()


def test_two_threads_rendering_their_own_worlds_each_draw_their_own():
    model = all_geoms()
    lists = [[world(model, 0.0), world(model, 0.4)], [world(model, -0.5), world(model, 0.2)]]
    with BatchRenderer(model, num_worlds=2, **SIZE) as renderer:
        expected = [renderer.render(worlds).segmentation for worlds in lists]
        start = threading.Barrier(2)
        wrong: list[object] = []

        def render(worlds, picture) -> None:
            start.wait()
            for _ in range(15):
                try:
                    got = renderer.render(worlds).segmentation
                except Exception as exc:  # before the fix: released buffers, half-built views
                    wrong.append(exc)
                    return
                if not np.array_equal(got, picture):
                    wrong.append("another thread's worlds")

        threads = [threading.Thread(target=render, args=pair)
                   for pair in zip(lists, expected, strict=True)]  # fmt: skip
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert wrong == []


RACE_SCRIPT = """
import sys
sys.path.insert(0, sys.argv[1])
import mujoco
import hypergl
from hypergl.testing import race_close
from hypergl_mujoco import BatchRenderer, RendererClosedError
from models import all_geoms

model = all_geoms()

def world(shift):
    data = mujoco.MjData(model)
    data.qpos[0] += shift
    mujoco.mj_forward(model, data)
    return data

seen = set()
for round in range(int(sys.argv[2])):
    lists = [[world(0.0), world(0.3)], [world(-0.4), world(0.1)]]
    shared = hypergl.context() if round % 2 else None  # odd rounds: close the context
    renderer = BatchRenderer(model, num_worlds=2, width=16, height=16, context=shared)
    uses = [lambda worlds=worlds: renderer.render(worlds) for worlds in lists]
    ended = race_close(uses, renderer.close if shared is None else shared.close)
    expected = RendererClosedError if shared is None else hypergl.HyperGLError
    foreign = [repr(e) for e in ended if not isinstance(e, expected)]
    assert not foreign, foreign
    seen.update(type(e).__name__ for e in ended)
    try:
        renderer.render(lists[0])
    except expected:
        pass
    else:
        raise AssertionError("a render after the close succeeded")
    renderer.close()
print(sorted(seen))
"""


def test_a_close_racing_renders_ends_them_with_our_error():
    # In an interpreter of its own: before the fix, raw AttributeErrors, renderers that
    # failed every later call, and aborts ("corrupted double-linked list").
    from pathlib import Path

    out = run_isolated(RACE_SCRIPT, str(Path(__file__).parent), "12")
    assert "RendererClosedError" in out


def test_a_closed_renderer_refuses_renders_and_closes_twice():
    model = all_geoms()
    renderer = BatchRenderer(model, **SIZE)
    renderer.render(world(model, 0.0))
    renderer.close()
    renderer.close()
    with pytest.raises(RendererClosedError, match="closed"):
        renderer.render(world(model, 0.0))
