"""Bad input to the bridge: each case raises its own exception and names the bad value."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import hypergl
from hypergl import ContextError, VMError
from hypergl_culverin import (
    BridgeReleasedError,
    CapacityError,
    EmptyWorldError,
    NotAWorldError,
)

pytestmark = pytest.mark.culverin


@pytest.mark.parametrize("source", [None, 42, np.zeros((4, 4)), "world"])
def test_not_a_world(ctx, source):
    with pytest.raises(NotAWorldError, match=r"culverin\.PhysicsWorld") as info:
        ctx.bridge("culverin", source)
    assert isinstance(info.value, TypeError)


def test_empty_world(ctx, make_world):
    world = make_world(floor=False)
    with pytest.raises(EmptyWorldError, match="no bodies"):
        ctx.bridge("culverin", world)
    bridge = ctx.bridge("culverin", world, capacity=8)  # an explicit capacity is fine
    assert bridge.sync() == 0
    assert bridge.counter.read(np.uint32)[0] == 0
    world.create_body(pos=(0, 1, 0), size=0.5, shape=1)
    assert bridge.sync() == 1


def test_world_grown_past_capacity(ctx, make_world):
    world = make_world()
    bridge = ctx.bridge("culverin", world, capacity=3)
    for i in range(2):
        world.create_body(pos=(i, 1, 0), size=0.5, shape=1)
    assert bridge.sync() == 3
    world.create_body(pos=(5, 1, 0), size=0.5, shape=1)
    with pytest.raises(CapacityError, match="4 bodies, more than the bridge's capacity of 3") as e:
        bridge.sync()
    assert "capacity=1024" in str(e.value)  # says how to raise it
    cmd = ctx.command_buffer()
    bridge.record(cmd)
    cmd.end()
    with pytest.raises(VMError, match=r"4 rows, more than the 3 records.*capacity=") as info:
        cmd.submit()
    assert info.value.mnemonic == "upload"
    with pytest.raises(CapacityError, match="smaller than the world's 4 bodies"):
        ctx.bridge("culverin", world, capacity=2)
    # The lock was given back after each failure: stepping still works.
    bridge.step(1 / 60)


def test_released_context(make_world):
    world = make_world()
    ctx = hypergl.context(device="trace")
    bridge = ctx.bridge("culverin", world)
    ctx.close()
    with pytest.raises(ContextError, match="closed"):
        bridge.sync()
    with pytest.raises(ContextError, match="closed"):
        ctx.bridge("culverin", world)


def test_released_bridge(ctx, make_world):
    bridge = ctx.bridge("culverin", make_world())
    bridge.release()
    assert bridge.released
    with pytest.raises(BridgeReleasedError, match="released"):
        bridge.sync()
    with pytest.raises(BridgeReleasedError):
        bridge.record(ctx.command_buffer())
    bridge2 = ctx.bridge("culverin", make_world())
    ctx.release("all")
    with pytest.raises(BridgeReleasedError):
        bridge2.sync()


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"precision": "f16"}, ValueError, "precision"),
        ({"capacity": 0}, ValueError, "capacity must be at least 1"),
        ({"capacity": 2.5}, TypeError, "capacity must be an int"),
        ({"velocities": "yes"}, TypeError, "velocities"),
        ({"binding": -1}, ValueError, "binding"),
        ({"colour": "red"}, TypeError, "colour"),
    ],
)
def test_bad_options(ctx, make_world, options, error, match):
    with pytest.raises(error, match=match):
        ctx.bridge("culverin", make_world(), **options)


def test_f64_needs_gpu_fp64(ctx, make_world, monkeypatch):
    monkeypatch.setattr(ctx, "capabilities", SimpleNamespace(fp64=False))
    with pytest.raises(ValueError, match="needs a GPU with fp64"):
        ctx.bridge("culverin", make_world(), precision="f64")
    assert ctx.bridge("culverin", make_world(), precision="auto").precision == "f32"


def test_record_into_another_contexts_program(ctx, make_world):
    bridge = ctx.bridge("culverin", make_world())
    other = hypergl.context(device="null")
    try:
        with pytest.raises(ValueError, match="command buffer of the bridge's context"):
            bridge.record(other.command_buffer())
    finally:
        other.close()


@pytest.mark.parametrize(
    ("detail", "error", "match"),
    [
        ((2, 8), ValueError, "sphere_detail values must be ints in 3..256"),
        ((8,), TypeError, "sphere_detail must be"),
        ((8.0, 8), ValueError, "sphere_detail values"),
    ],
)
def test_bad_sphere_detail(ctx, make_world, detail, error, match):
    from hypergl_culverin import BodyRenderer

    bridge = ctx.bridge("culverin", make_world())
    with pytest.raises(error, match=match):
        BodyRenderer(bridge, sphere_detail=detail)


# --- shapes, helpers and the renderer ------------------------------------------------------


def test_unknown_and_bad_shapes(ctx, make_world):
    import culverin

    from hypergl_culverin import ShapeError
    from hypergl_culverin.shapes import ConvexHull, Heightfield

    world = make_world()
    bridge = ctx.bridge("culverin", world, capacity=64)
    with pytest.raises(ShapeError, match="unknown Culverin shape 99"):
        bridge.create_body(pos=(0, 1, 0), size=0.5, shape=99)
    with pytest.raises(ShapeError, match="create_convex_hull"):
        bridge.create_body(pos=(0, 1, 0), size=0.5, shape=culverin.SHAPE_CONVEX_HULL)
    with pytest.raises(ShapeError, match="needs size="):
        bridge.create_body(pos=(0, 1, 0), shape=culverin.SHAPE_BOX)
    with pytest.raises(ShapeError, match=r"capsule \(half_height, radius\)"):
        bridge.create_body(pos=(0, 1, 0), size=(0.5, -1.0), shape=culverin.SHAPE_CAPSULE)
    with pytest.raises(ShapeError, match="flat"):
        ConvexHull([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]])
    with pytest.raises(ShapeError, match="at least 4"):
        bridge.create_convex_hull((0, 0, 0), (0, 0, 0, 1), [[0, 0, 0], [1, 0, 0]])
    with pytest.raises(ShapeError, match="needs 16 finite heights, got 3"):
        Heightfield([1.0, 2.0, 3.0], 4)
    with pytest.raises(ShapeError, match="compound part is"):
        bridge.create_compound_body((0, 0, 0), (0, 0, 0, 1), [(1, 2)])
    with pytest.raises(ShapeError, match=r"triangles naming vertices 0\.\.2"):
        bridge.create_mesh_body((0, 0, 0), (0, 0, 0, 1), np.zeros((3, 3)), [0, 1, 5])
    assert world.count == 1  # nothing was created by a rejected call


def test_renderer_bad_looks_and_limits(ctx, make_world):
    from hypergl_culverin import BodyRenderer, ShapeError

    world = make_world()
    bridge = ctx.bridge("culverin", world, capacity=64)
    renderer = BodyRenderer(bridge, max_ids=8, max_parts=3)
    with pytest.raises(ShapeError, match="unknown shape 'torus'"):
        renderer.set_look(1, "torus", 1.0)
    with pytest.raises(ShapeError, match="needs a size"):
        renderer.set_look(1, "box")
    with pytest.raises(ValueError, match=r"body id 8 is outside 0..7 \(raise max_ids\)"):
        renderer.set_look(8, "box", 0.5)
    with pytest.raises(ValueError, match="color must be"):
        renderer.set_look(1, "box", 0.5, color=(1, 0))
    for body_id in (1, 2, 3):
        renderer.set_look(body_id, "box", 0.5)
    renderer.set_look(3, "sphere", 0.5)  # a new look in the same slots: no part used up
    with pytest.raises(ShapeError, match="raise max_parts"):
        renderer.set_look(4, "box", 0.5)
    with pytest.raises(ValueError, match="lod_threshold"):
        BodyRenderer(bridge, lod_threshold=2.0)
    for light in ((0, 0, 0), (1, 2), (0, float("nan"), 1)):
        with pytest.raises(ValueError, match=r"light must be a finite, non-zero \(x, y, z\)"):
            renderer.set_camera(np.eye(4), light=light)


def test_helpers_of_a_released_bridge(ctx, make_world):
    world = make_world()
    bridge = ctx.bridge("culverin", world, capacity=16)
    bridge.release()
    with pytest.raises(BridgeReleasedError):
        bridge.create_body(pos=(0, 1, 0), size=0.5, shape=1)
    with pytest.raises(BridgeReleasedError):
        bridge.sync()
    from hypergl_culverin import BodyRenderer

    with pytest.raises(BridgeReleasedError):
        BodyRenderer(bridge)


def test_vehicle_on_an_unstepped_chassis_and_foreign_ragdoll_settings(ctx, make_world):
    import culverin

    world = make_world()
    bridge = ctx.bridge("culverin", world, capacity=16)
    chassis = bridge.create_body(pos=(0, 2, 0), size=(1, 0.3, 2), mass=800.0)
    # Culverin 0.15 crashes the interpreter here; the bridge refuses first.
    with pytest.raises(ValueError, match="step the world once"):
        bridge.create_vehicle(chassis, [{"pos": (1, 0, 1), "radius": 0.4}])
    skeleton = culverin.Skeleton()
    skeleton.add_joint("root")
    skeleton.finalize()
    with pytest.raises(TypeError, match=r"bridge\.ragdoll_settings"):
        bridge.create_ragdoll(world.create_ragdoll_settings(skeleton), (0, 1, 0))
    with pytest.raises(ValueError, match="not alive"):
        bridge.assign_id(123456789)
