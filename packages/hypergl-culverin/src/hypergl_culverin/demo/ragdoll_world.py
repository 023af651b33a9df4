"""The ragdoll scene: humanoid ragdolls rain into the clearing.

``hypergl demo --scene ragdolls``.
"""

from __future__ import annotations

import numpy as np

from ..ragdolls import HUMANOID, humanoid
from .world import PALETTE, world_settings

PARTS = len(HUMANOID)
SPACING = 1.6  # metres between ragdolls in a layer of the rain


def rain_positions(count: int, radius: float = 16.0, start: float = 3.0) -> np.ndarray:
    """Spawn points in layers over the clearing, ``SPACING`` apart, 2.2 m between layers."""
    side = max(1, int(2 * radius / SPACING))
    grid = (np.stack(np.meshgrid(np.arange(side), np.arange(side)), -1).reshape(-1, 2)
            - (side - 1) / 2) * SPACING  # fmt: skip
    layer = grid[np.hypot(grid[:, 0], grid[:, 1]) <= radius]
    level, spot = np.divmod(np.arange(count), len(layer))
    jitter = np.random.default_rng(5).uniform(-0.2, 0.2, (count, 2))
    out = np.empty((count, 3))
    out[:, [0, 2]] = layer[spot] + jitter
    out[:, 1] = start + 2.2 * level
    return out


def build_ragdoll_world(bridge_factory, ragdolls: int, physics_threads: int | None = None):
    """A world with a static floor and `ragdolls` humanoids; returns (world, bridge).

    The bridge owns the ragdolls (Culverin drops a ragdoll with its Python object) and
    records each part's shape for the renderer.
    """
    import culverin

    bodies = ragdolls * PARTS + 8
    world = culverin.PhysicsWorld(settings=world_settings(
        physics_threads, max_bodies=bodies, max_pairs=4 * bodies,
        max_contact_constraints=4 * bodies))  # fmt: skip
    world.create_body(pos=(0, -1, 0), size=(80, 1, 80), shape=culverin.SHAPE_BOX,
                      motion=culverin.MOTION_STATIC)  # fmt: skip
    bridge = bridge_factory(world, bodies)
    settings = humanoid(bridge)
    rng = np.random.default_rng(17)
    colours = rng.integers(0, len(PALETTE), ragdolls)
    for index, point in enumerate(rain_positions(ragdolls)):
        yaw, tilt = rng.uniform(0, 2 * np.pi), rng.uniform(-0.6, 0.6)
        # A random heading and a lean, so that they land in every pose.
        rotation = (np.sin(tilt / 2) * np.cos(yaw), np.sin(yaw / 2) * np.cos(tilt / 2),
                    np.sin(tilt / 2) * np.sin(yaw), np.cos(yaw / 2) * np.cos(tilt / 2))  # fmt: skip
        rotation = tuple(float(x) for x in np.asarray(rotation) / np.linalg.norm(rotation))
        bridge.create_ragdoll(settings, tuple(point), rotation, color=PALETTE[colours[index]])
    return world, bridge
