"""The bridge's copy: layout, precision, identity across destroys, sync vs the VM's upload."""

from __future__ import annotations

import numpy as np
import pytest

import hypergl
from hypergl_culverin import CulverinBridge
from hypergl_culverin.layout import RecordLayout

pytestmark = pytest.mark.culverin


def shadow(world):
    """Copies of Culverin's positions (x, y, z), rotations and user_data, row order."""
    positions = np.frombuffer(world.positions, np.float64).reshape(-1, 4)[:, :3].copy()
    rotations = np.frombuffer(world.rotations, np.float32).reshape(-1, 4).copy()
    ids = np.frombuffer(world.user_data, np.uint64).copy()
    return positions, rotations, ids


def test_entry_point_gives_the_bridge(ctx, make_world):
    assert "culverin" in hypergl.installed_bridges()
    world = make_world()
    bridge = ctx.bridge("culverin", world)
    assert isinstance(bridge, CulverinBridge)
    assert bridge.capacity == 256  # headroom capped by world.max_bodies
    assert bridge.record_size == 32 and bridge.precision == "f32"


def test_sync_copies_every_body(ctx, make_world, drop_grid):
    world = make_world()
    bridge = ctx.bridge("culverin", world, capacity=64)
    drop_grid(bridge, 3, 4)
    for _ in range(20):
        world.step(1 / 60)
    assert bridge.sync() == world.count == 13
    positions, rotations, ids = shadow(world)
    records = bridge.records()
    assert len(records) == 13
    assert np.array_equal(records["position"], positions.astype(np.float32))
    assert np.array_equal(records["rotation"], rotations)
    assert np.array_equal(records["id"], ids.astype(np.uint32))
    assert list(records["id"]) == list(range(13))  # floor 0, then the bridge's ids 1..12
    assert bridge.counter.read(np.uint32)[0] == 13


@pytest.mark.parametrize("velocities", [False, True])
def test_f64_positions_and_velocities(ctx, velocities, make_world, drop_grid):
    world = make_world()
    bridge = ctx.bridge("culverin", world, precision="f64", velocities=velocities, capacity=32)
    drop_grid(bridge, 2, 2, height=1000.25)
    for _ in range(10):
        world.step(1 / 60)
    bridge.sync()
    positions, _, _ = shadow(world)
    records = bridge.records()
    assert records.dtype["position"].base == np.float64
    assert np.array_equal(records["position"], positions)  # no rounding at all
    if velocities:
        expected = np.frombuffer(world.velocities, np.float32).reshape(-1, 4)
        assert np.array_equal(records["velocity"], expected)
        assert records["velocity"][1:, 1].max() < -1.0  # falling
    assert bridge.record_size == 64


def test_record_layouts():
    assert RecordLayout.make("f32").record_size == 32
    assert RecordLayout.make("f32", velocities=True).record_size == 48
    assert RecordLayout.make("f64").record_size == 64
    assert RecordLayout.make("f64", velocities=True).record_size == 64
    for layout in (RecordLayout.make("f32"), RecordLayout.make("f64", True)):
        assert layout.numpy_dtype().itemsize == layout.record_size
        assert "struct CulverinBody" in layout.glsl(3, 4) and "binding = 3" in layout.glsl(3, 4)


def test_stable_ids_follow_bodies_across_destroys(ctx, make_world, drop_grid):
    """Destroys swap-remove rows; each row's id still names the body at that row."""
    world = make_world()
    bridge = ctx.bridge("culverin", world, capacity=64)
    handles = drop_grid(bridge, 4, 5)
    by_id = {world.get_user_data(h): h for h in handles}
    for _ in range(10):
        world.step(1 / 60)
    for handle in [*handles[1:12:2], handles[0]]:
        del by_id[world.get_user_data(handle)]
        world.destroy_body(handle)
    world.step(1 / 60)
    rows = bridge.sync()
    assert rows == world.count == 1 + 20 - 7
    records = bridge.records()
    seen = set()
    for record in records:
        body_id = int(record["id"])
        if body_id == 0:
            continue  # the floor
        seen.add(body_id)
        expected = np.array(world.get_position(by_id[body_id]), np.float32)
        assert np.array_equal(record["position"], expected), body_id
        rotation = np.array(world.get_rotation(by_id[body_id]), np.float32)
        assert np.array_equal(record["rotation"], rotation), body_id
    assert seen == set(by_id)


def test_sync_and_the_upload_instruction_share_one_path(ctx, make_world, drop_grid):
    world = make_world()
    bridge = ctx.bridge("culverin", world, capacity=16)
    drop_grid(bridge, 2, 3)
    cmd = ctx.command_buffer()
    bridge.record(cmd)
    cmd.end()
    for _ in range(3):
        world.step(1 / 30)
        cmd.submit()
        positions, _, _ = shadow(world)
        assert np.array_equal(bridge.records()["position"], positions.astype(np.float32))
    world.step(1 / 30)
    bridge.sync()
    from_sync = bridge.records().copy()
    cmd.submit()
    assert np.array_equal(bridge.records(), from_sync)
    assert bridge.count == 7


def test_assign_id_and_create_body(ctx, make_world):
    world = make_world(floor=False)
    plain = world.create_body(pos=(0, 5, 0), size=0.5, shape=1)
    bridge = ctx.bridge("culverin", world)
    assert world.get_user_data(plain) == 0
    assert bridge.assign_id(plain) == 1 and world.get_user_data(plain) == 1
    assert world.get_user_data(bridge.create_body(pos=(2, 5, 0), size=0.5, shape=1)) == 2
    with pytest.raises(ValueError, match="assigns user_data"):
        bridge.create_body(pos=(0, 0, 0), user_data=7)


def test_the_bridge_keeps_the_bridge_contract(bridge):
    """ctx.bridge's object is a hypergl.plugins.Bridge and a record source: hypergl-core's
    own BodyRenderer draws it as it is (docs/plugins/hypergl-bridge.md)."""
    from hypergl.bodies import BodyRenderer
    from hypergl.plugins import RECORD_SOURCE, Bridge

    assert isinstance(bridge, Bridge)
    assert all(hasattr(bridge, member) for member in RECORD_SOURCE)
    assert "uint body_count()" in bridge.body_glsl()
    renderer = BodyRenderer(bridge)
    renderer.set_look(0, "sphere", 0.5)
    renderer.release()
    bridge.close()
    bridge.close()  # twice: nothing
    assert bridge.released
