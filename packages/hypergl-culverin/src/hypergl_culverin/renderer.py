"""Draws every Culverin body kind through hypergl-core's shared body renderer.

:class:`hypergl.bodies.BodyRenderer` does the drawing (mesh library with levels of detail,
the compute cull and append, one multi-draw-indirect-count, occlusion culling, many views).
What is Culverin's stays here: the bridge's records as the record source, looks from the
shapes the bridge's creating helpers recorded (``bridge.create_body``,
``create_convex_hull``, ``create_compound_body``, ``create_ragdoll``, ``load_urdf``, ...),
soft bodies' vertices, and characters' and wheels' transforms (Culverin 0.15 reports those
only per object, as Python tuples; they are the only per-object Python of a frame). Looks
are per *stable id* (``user_data``), so Culverin's swap-removes move rows without moving
looks. Call ``update()`` once per frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypergl.bodies import renderer as core
from hypergl.bodies.renderer import DEFAULT_MAX_IDS, PALETTE, PART_DTYPE  # noqa: F401
from hypergl.serialised import serialised

from .bridge import CulverinBridge
from .errors import ShapeError
from .shapes import Shape, from_name


class BodyRenderer(core.BodyRenderer):
    """Every body of a bridge, each kind with its own mesh, in one multi-draw.

    Storage bindings from ``bridge.binding`` (B): records B, counter B + 1, and the core
    renderer's eleven after them (:class:`hypergl.bodies.BodyRenderer`).
    """

    shape_error = ShapeError

    def __init__(self, bridge: CulverinBridge, *, looks_binding: int | None = None,
                 **options: Any) -> None:  # fmt: skip
        if not isinstance(bridge, CulverinBridge):
            raise TypeError(f"BodyRenderer needs a CulverinBridge, got {bridge!r}")
        bridge._check_live()
        if looks_binding is not None and looks_binding != bridge.binding + 2:
            raise ValueError("looks_binding is always bridge.binding + 2 (the renderer "
                             "uses the seven bindings after the bridge's)")  # fmt: skip
        self._bridge = bridge
        super().__init__(bridge, **options)

    @serialised
    def set_look(
        self,
        body_id: int,
        shape: str | Shape,
        size: float | Sequence[float] | None = None,
        color: Sequence[float] | None = None,
    ) -> None:
        """Appearance of the body whose stable id (``user_data``) is `body_id`.

        `shape` is a :class:`~hypergl_culverin.shapes.Shape` (any kind, parts placed about
        the centre of mass), a name (``"box"`` with half extents, ``"sphere"`` with a
        radius, ``"capsule"`` / ``"cylinder"`` with ``(half_height, radius)``) and its
        `size`, or ``"none"`` (not drawn).
        """
        self._check_id(body_id)
        if isinstance(shape, str):
            if shape == "none":
                self._drop_look(int(body_id))
                return
            if size is None:
                raise ShapeError(f"shape {shape!r} needs a size")
            shape = from_name(shape, size)
        elif not isinstance(shape, Shape):
            raise ShapeError(f"shape must be a name or a hypergl_culverin.shapes.Shape, "
                             f"got {shape!r}")  # fmt: skip
        self.set_parts(body_id, shape.parts(), shape.meshes(), color)

    @serialised
    def update(self) -> None:
        """Take in the bridge's new looks and soft bodies; write characters' and wheels'
        transforms (one Culverin call each). Call once per frame, before ``submit``."""
        bridge = self._bridge
        bridge.set_looks(self)  # the looks of the bodies made since the last update
        super().update()
        rows = []
        for body_id, transform in bridge.attachments:
            position, rotation = transform()
            rows.append((position, body_id, rotation))
        self.write_extras(rows)
