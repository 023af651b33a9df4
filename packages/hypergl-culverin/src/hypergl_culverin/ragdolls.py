"""Ragdolls: Culverin's RagdollSettings with each part's shape recorded, and a humanoid.

Culverin cannot report a ragdoll part's shape, so :class:`RecordingRagdollSettings` keeps
what ``add_part`` was given; ``bridge.create_ragdoll`` then gives every part's body a
stable id and the recorded shape.
"""

from __future__ import annotations

from typing import Any

import culverin

from . import shapes


class RecordingRagdollSettings:
    """Wraps ``culverin.RagdollSettings``: ``add_part`` records the shape, in joint order."""

    def __init__(self, native: Any) -> None:
        self.native = native
        self._by_joint: dict[int, shapes.Shape] = {}

    def add_part(self, joint_index: int, shape_type: int, size: Any, mass: float = 10.0,
                 parent_index: int = -1, **options: Any) -> None:  # fmt: skip
        shape = shapes.from_culverin(shape_type, size)
        if joint_index in self._by_joint:
            raise ValueError(f"joint {joint_index} already has a part")
        self.native.add_part(joint_index, shape_type, size, mass, parent_index, **options)
        self._by_joint[joint_index] = shape

    def stabilize(self) -> bool:
        return self.native.stabilize()

    @property
    def shapes(self) -> list[shapes.Shape]:
        """The parts' shapes in body-handle order (Culverin creates parts in joint order)."""
        return [self._by_joint[j] for j in sorted(self._by_joint)]


# (joint, parent, shape, size, mass, offset of the part from the hips)
HUMANOID = [
    ("hips", None, culverin.SHAPE_BOX, (0.16, 0.10, 0.10), 12.0, (0.0, 0.0, 0.0)),
    ("chest", "hips", culverin.SHAPE_CAPSULE, (0.14, 0.12), 10.0, (0.0, 0.34, 0.0)),
    ("head", "chest", culverin.SHAPE_SPHERE, 0.11, 4.0, (0.0, 0.68, 0.0)),
    ("left_arm", "chest", culverin.SHAPE_CAPSULE, (0.18, 0.05), 3.0, (-0.18, 0.34, 0.0)),
    ("right_arm", "chest", culverin.SHAPE_CAPSULE, (0.18, 0.05), 3.0, (0.18, 0.34, 0.0)),
    ("left_leg", "hips", culverin.SHAPE_CAPSULE, (0.22, 0.07), 6.0, (-0.10, -0.40, 0.0)),
    ("right_leg", "hips", culverin.SHAPE_CAPSULE, (0.22, 0.07), 6.0, (0.10, -0.40, 0.0)),
]


def humanoid(bridge: Any) -> RecordingRagdollSettings:
    """Seven parts (box hips, capsule chest, sphere head, four capsule limbs)."""
    skeleton = culverin.Skeleton()
    index: dict[str, int] = {}
    for name, parent, *_ in HUMANOID:
        index[name] = skeleton.add_joint(name, -1 if parent is None else index[parent])
    skeleton.finalize()
    settings = bridge.ragdoll_settings(skeleton)
    for name, parent, shape, size, mass, offset in HUMANOID:
        parent_index = -1 if parent is None else index[parent]
        # Loose joints (a cone of 0.6 rad, +-0.3 rad twist): it slumps as a ragdoll should.
        settings.add_part(
            index[name],
            shape,
            size,
            mass,
            parent_index,
            twist_min=-0.3,
            twist_max=0.3,
            cone_angle=0.0 if parent is None else 0.6,
            pos=offset,
        )
    settings.stabilize()
    return settings
