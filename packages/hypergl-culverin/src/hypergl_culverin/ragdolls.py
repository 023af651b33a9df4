"""Ragdolls: Culverin's RagdollSettings with each part's shape recorded, and a humanoid.

Culverin cannot report a ragdoll part's shape, so :class:`RecordingRagdollSettings` keeps
what ``add_part`` was given; ``bridge.create_ragdoll`` then gives every part's body a
stable id and the recorded shape.
"""

from __future__ import annotations

from typing import Any

import culverin

from . import shapes, values
from .errors import BadValueError

PART_OPTIONS = ("twist_min", "twist_max", "cone_angle", "axis", "normal", "pos")


def joint_count(world: Any, skeleton: Any) -> int:
    """How many joints `skeleton` has. Culverin 0.15 does not say, but ``add_part``
    raises ``IndexError`` for a joint index past the end: bisect on scratch settings."""

    def exists(joint: int) -> bool:
        scratch = world.create_ragdoll_settings(skeleton)
        try:
            scratch.add_part(joint, culverin.SHAPE_SPHERE, 0.1, 1.0, -1)
        except IndexError:
            return False
        return True

    high = 1
    while high <= 1 << 16 and exists(high - 1):
        high *= 2
    low = high // 2  # joint low - 1 exists (or low == 0); joint high - 1 does not
    while low < high:
        middle = (low + high) // 2
        low, high = (middle + 1, high) if exists(middle) else (low, middle)
    return low


class RecordingRagdollSettings:
    """Wraps ``culverin.RagdollSettings``: ``add_part`` checks every value and records the
    shape, in joint order; a ragdoll is made only once every joint has its part
    (Culverin 0.15 segfaults in ``stabilize`` and ``create_ragdoll`` otherwise)."""

    def __init__(self, world: Any, skeleton: Any) -> None:
        self.joints: int = joint_count(world, skeleton)
        if self.joints == 0:
            raise BadValueError("the skeleton has no joints (add_joint, then finalize)")
        self.native: Any = world.create_ragdoll_settings(skeleton)
        self._by_joint: dict[int, shapes.Shape] = {}

    def add_part(self, joint_index: int, shape_type: int, size: Any, mass: float = 10.0,
                 parent_index: int = -1, **options: Any) -> None:  # fmt: skip
        joint = values.integer(joint_index, "ragdoll part joint_index", low=0,
                               high=self.joints - 1)  # fmt: skip
        if joint in self._by_joint:
            raise BadValueError(f"joint {joint} already has a part")
        parent = values.integer(parent_index, f"ragdoll part {joint} parent_index", low=-1,
                                high=joint - 1)  # fmt: skip
        shape = shapes.from_culverin(shape_type, size)
        mass = values.OPTIONS["mass"](mass, f"ragdoll part {joint} mass")
        options = values.options(options, PART_OPTIONS, f"ragdoll part {joint}")
        if options.get("twist_min", -0.1) > options.get("twist_max", 0.1):
            raise BadValueError(f"ragdoll part {joint}: twist_min {options.get('twist_min', -0.1)}"
                                f" is above twist_max {options.get('twist_max', 0.1)}")  # fmt: skip
        with values.calling(f"ragdoll part {joint}"):
            self.native.add_part(joint, shape_type, size, mass, parent, **options)
        self._by_joint[joint] = shape

    def check_complete(self) -> None:
        missing = [j for j in range(self.joints) if j not in self._by_joint]
        if missing:
            raise BadValueError(f"ragdoll joints {missing} have no part: add_part for every "
                                f"joint of the skeleton ({self.joints})")  # fmt: skip

    def stabilize(self) -> bool:
        self.check_complete()
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
