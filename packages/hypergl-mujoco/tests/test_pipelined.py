"""BatchRenderer in a hypergl.PhysicsPipeline: ``snapshot(data)`` copies the poses, ``draw()``
renders them while the worlds step on the pipeline's thread; the frames are those of a
sequential run, a render is a snapshot and a draw, and a draw needs a snapshot."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

import hypergl
import hypergl_mujoco
from hypergl_mujoco.errors import DataError

from . import models

pytestmark = pytest.mark.gl


def frames(model, overlapped: bool, count: int, ctx) -> list[dict[str, np.ndarray]]:
    worlds = [models.stepped(model, 2, seed) for seed in range(3)]
    rng = np.random.default_rng(5)
    pushes = rng.normal(0.0, 2.0, (count + 1, 3, model.nv))  # each step's kick, fixed

    def step() -> None:
        step.n += 1
        for data, push in zip(worlds, pushes[step.n], strict=True):
            data.qvel[:] += push * 0.05
            for _ in range(4):
                mujoco.mj_step(model, data)

    step.n = 0
    with hypergl_mujoco.BatchRenderer(model, 3, cameras=["fixed", "tracking"], width=32,
                                      height=24, context=ctx) as renderer, \
            hypergl.PhysicsPipeline(step, overlapped=overlapped) as pipeline:  # fmt: skip
        shown = []
        for n in range(count):
            result = pipeline.frame(lambda: renderer.snapshot(worlds), renderer.draw,
                                    step_after=n + 1 < count)  # fmt: skip
            shown.append({name: result[name].copy() for name in result})
    assert step.n == count
    return shown


def test_an_overlapped_run_renders_exactly_the_sequential_frames(gl_ctx):
    model = models.all_geoms()
    sequential = frames(model, False, 8, gl_ctx)
    overlapped = frames(model, True, 8, gl_ctx)
    assert len({f["rgb"].tobytes() for f in sequential}) == 8  # the worlds move every frame
    for n, (one, other) in enumerate(zip(sequential, overlapped, strict=True)):
        for name in one:
            assert np.array_equal(one[name], other[name]), f"frame {n}: {name} differs"


def test_render_is_a_snapshot_then_a_draw_and_a_draw_needs_a_snapshot(gl_ctx):
    model = models.all_geoms()
    data = models.stepped(model, 5)
    with hypergl_mujoco.BatchRenderer(model, 1, cameras=["fixed"], width=32, height=24,
                                      context=gl_ctx) as renderer:  # fmt: skip
        with pytest.raises(DataError, match="take one first"):
            renderer.draw()
        rendered = renderer.render(data)
        renderer.snapshot(data)
        moved = data.qpos.copy()
        for _ in range(50):  # the physics moves on after the snapshot...
            mujoco.mj_step(model, data)
        assert not np.array_equal(moved, data.qpos)
        drawn = renderer.draw()  # ...and the draw still shows the snapshot
        for name in rendered:
            assert np.array_equal(rendered[name], drawn[name])
