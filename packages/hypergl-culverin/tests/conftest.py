"""Fixtures of the hypergl-culverin tests: contexts and small Culverin worlds."""

from __future__ import annotations

import pytest

culverin = pytest.importorskip("culverin")

import hypergl  # noqa: E402
from hypergl.testing import ctx, gl_ctx, skip_gl_tests_without_context  # noqa: E402

__all__ = ["ctx", "gl_ctx"]  # fixtures, used by name

pytest_collection_modifyitems = skip_gl_tests_without_context


def new_world(max_bodies: int = 256, floor: bool = True):
    """A world with (optionally) a static floor whose top face is y = 0."""
    world = culverin.PhysicsWorld(settings={"max_bodies": max_bodies})
    if floor:
        world.create_body(pos=(0, -1, 0), size=(30, 1, 30), shape=culverin.SHAPE_BOX,
                          motion=culverin.MOTION_STATIC)  # fmt: skip
    return world


def grid_of_bodies(bridge, rows: int, cols: int, spacing: float = 3.0, height: float = 2.0):
    """Alternating spheres (radius 0.5) and boxes (half extent 0.5) on a grid; their handles."""
    handles = []
    for i in range(rows * cols):
        x = (i % cols - (cols - 1) / 2) * spacing
        z = (i // cols - (rows - 1) / 2) * spacing
        shape = culverin.SHAPE_SPHERE if i % 2 == 0 else culverin.SHAPE_BOX
        size = 0.5 if shape == culverin.SHAPE_SPHERE else (0.5, 0.5, 0.5)
        handles.append(bridge.create_body(pos=(x, height + 0.1 * i, z), size=size, shape=shape))
    return handles


@pytest.fixture
def make_world():
    """``make_world(max_bodies=256, floor=True)``: a fresh Culverin world."""
    return new_world


@pytest.fixture
def bridge(make_world):
    """A bridge of 64 bodies over a fresh world, on the trace device (checks need no GPU)."""
    context = hypergl.context(device="trace")
    try:
        yield context.bridge("culverin", make_world(max_bodies=64), capacity=64)
    finally:
        context.close()


@pytest.fixture
def drop_grid():
    """``drop_grid(bridge, rows, cols, spacing=3, height=2)``: bodies on a grid."""
    return grid_of_bodies
