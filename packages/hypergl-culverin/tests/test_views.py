"""Views kept between syncs (``keep_views``) never outlive the memory they point at.

Culverin refuses to reallocate a shadow buffer while a view of it is exported (it raises
``BufferError``), so a held view's address stays valid; the bridge re-exports when the
body count changes and releases its views before its helpers (or ``stepping()``) create
bodies. These tests grow a world through several capacity doublings and destroy bodies
while syncing every step, and compare every record with Culverin's own arrays.
(The suite has no AddressSanitizer build; the checks here are on the data.)
"""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.culverin


def assert_records_match(bridge, world):
    rows = bridge.sync()
    assert rows == world.count
    records = bridge.records()
    positions = np.frombuffer(world.positions, np.float64).reshape(-1, 4)[:, :3]
    ids = np.frombuffer(world.user_data, np.uint64)
    assert np.array_equal(records["position"], positions.astype(np.float32))
    assert np.array_equal(records["id"], ids.astype(np.uint32))


def test_growth_through_doublings_and_destruction_while_syncing(ctx, make_world):
    world = make_world(max_bodies=4096, floor=False)
    bridge = ctx.bridge("culverin", world, capacity=4096)
    rng = np.random.default_rng(7)
    alive = []
    for burst in range(12):  # 1, 2, 4, ... 2048 new bodies: past several Culverin doublings
        for i in range(2**burst if burst < 11 else 1500):
            alive.append(bridge.create_body(pos=(float(i % 50), 2.0 + burst, float(i // 50)),
                                            size=0.3, shape=culverin_sphere()))  # fmt: skip
        for handle in rng.choice(alive, size=len(alive) // 5, replace=False):
            world.destroy_body(int(handle))  # swap-removes rows at the next step
            alive.remove(handle)
        for _ in range(3):
            world.step(1 / 60)
            assert_records_match(bridge, world)
            assert bridge.source.views_held  # kept between syncs
    assert world.count == len(alive) > 2000


def test_direct_growth_after_drop_views_or_inside_stepping(ctx, make_world):
    import culverin

    world = make_world(max_bodies=4096, floor=False)
    bridge = ctx.bridge("culverin", world, capacity=4096)
    world.create_body(pos=(0, 1, 0), size=0.3, shape=culverin.SHAPE_SPHERE)
    world.step(1 / 60)
    assert_records_match(bridge, world)
    # Culverin will not grow under a held view: the bridge tells it so...
    with pytest.raises(BufferError):
        for i in range(4096):
            world.create_body(pos=(i, 1, 0), size=0.3, shape=culverin.SHAPE_SPHERE)
    bridge.drop_views()  # ...and lets it go
    for i in range(300):
        world.create_body(pos=(i, 3, 0), size=0.3, shape=culverin.SHAPE_SPHERE)
    world.step(1 / 60)
    assert_records_match(bridge, world)
    with bridge.stepping():  # creation inside stepping(): the views are released first
        for i in range(1000):
            world.create_body(pos=(i, 5, 0), size=0.3, shape=culverin.SHAPE_SPHERE)
        world.step(1 / 60)
    assert_records_match(bridge, world)


def test_views_exported_at_every_sync_without_keep_views(ctx, make_world):
    world = make_world(max_bodies=1024)
    bridge = ctx.bridge("culverin", world, capacity=1024, keep_views=False)
    world.step(1 / 60)
    assert_records_match(bridge, world)
    assert not bridge.source.views_held
    for i in range(600):  # grows freely: nothing is held
        world.create_body(pos=(i, 1, 0), size=0.3, shape=1)
    world.step(1 / 60)
    assert_records_match(bridge, world)
    with pytest.raises(TypeError, match="keep_views"):
        ctx.bridge("culverin", world, keep_views="yes")


def culverin_sphere():
    import culverin

    return culverin.SHAPE_SPHERE
