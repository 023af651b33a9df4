"""The demo's physics: a Culverin world with a floor and bodies dropped into a clearing."""

from __future__ import annotations

import numpy as np

SPACING = 1.25
PALETTE = [(0.91, 0.44, 0.32), (0.96, 0.76, 0.29), (0.27, 0.62, 0.80), (0.55, 0.40, 0.75),
           (0.90, 0.90, 0.88)]  # fmt: skip


def drop_positions(count: int, radius: float = 16.0, start: float = 4.0) -> np.ndarray:
    """`count` spawn points in a column above the clearing, `SPACING` apart."""
    side = max(1, int(2 * radius / SPACING))
    layer = np.array([(x, z) for x in range(side) for z in range(side)], float)
    layer = (layer - (side - 1) / 2) * SPACING
    layer = layer[np.hypot(layer[:, 0], layer[:, 1]) <= radius]
    rng = np.random.default_rng(3)
    out = np.empty((count, 3))
    for i in range(count):
        level, spot = divmod(i, len(layer))
        out[i, 0], out[i, 2] = layer[spot] + rng.uniform(-0.15, 0.15, 2)
        out[i, 1] = start + level * SPACING
    return out


def world_settings(physics_threads: int | None, **settings) -> dict:
    """Culverin world settings, with `physics_threads` job threads unless None."""
    if physics_threads is not None:
        settings["num_threads"] = physics_threads
    return settings


def build_world(bridge_factory, bodies: int, physics_threads: int | None = None):
    """A world with a static floor and `bodies` boxes and spheres; returns (world, bridge).
    `physics_threads`: Jolt's job threads (None: Culverin's default, 4).

    `bridge_factory(world, capacity)` makes the bridge; bodies get their stable ids and
    their looks (shape and colour, taken in by the renderer) from its helpers.
    """
    import culverin

    world = culverin.PhysicsWorld(settings=world_settings(physics_threads, max_bodies=bodies + 8))
    world.create_body(pos=(0, -1, 0), size=(80, 1, 80), shape=culverin.SHAPE_BOX,
                      motion=culverin.MOTION_STATIC)  # fmt: skip
    bridge = bridge_factory(world, bodies + 8)
    positions = drop_positions(bodies)
    colours = np.random.default_rng(11).integers(0, len(PALETTE), bodies)
    # One create_body per body: Culverin 0.15's create_bodies_batch makes bodies
    # that fall through static ones (seen here), so the batch call is not used.
    for index, point in enumerate(positions):
        box = index % 2 == 0
        size = (0.45, 0.45, 0.45) if box else 0.5
        bridge.create_body(
            pos=tuple(point), size=size, motion=culverin.MOTION_DYNAMIC,
            shape=culverin.SHAPE_BOX if box else culverin.SHAPE_SPHERE,
            color=PALETTE[colours[index]],
        )  # fmt: skip
    return world, bridge
