"""The ``hypergl.bridges: mujoco`` entry point: ``ctx.bridge("mujoco", data, ...)``.

A :class:`MujocoBridge` keeps the one bridge contract (:class:`hypergl.plugins.Bridge`,
docs/plugins/hypergl-bridge.md), as the Culverin bridge does: it is the record source of
every world's geoms of `data` (one ``MjData``, a sequence of them, one a world, or a
``mujoco.batch.Batch``), synced in C++ by the programs it records into, and
``set_looks(renderer)`` gives each geom MuJoCo's shape, size and colour on a
``hypergl.bodies.BodyRenderer`` over it. :class:`~hypergl_mujoco.BatchRenderer` draws MuJoCo's
whole picture (lights, textures, shadows, sites, tendons, skins) over the same records.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mujoco
import numpy as np

import hypergl

from . import scene
from .errors import DataError, ModelMismatchError
from .sync import GeomRecords, geom_source
from .versions import batch_type

BATCH = batch_type()  # mujoco.batch.Batch; None before MuJoCo 3.17


def check_same_model(model: mujoco.MjModel, other: mujoco.MjModel, what: str,
                     whose: str) -> None:  # fmt: skip
    """`what` must be of `model` (`whose`), or of a model object with the same geoms (a
    gymnasium vector env gives each sub-env its own copy of one model): same sizes, geom
    types, sizes and meshes; ModelMismatchError naming what differs."""
    if other is model:
        return
    mine = (model.ngeom, model.nbody, model.ncam)
    theirs = (other.ngeom, other.nbody, other.ncam)
    if mine != theirs:
        raise ModelMismatchError(f"{what} belongs to a model of {theirs[0]} geoms, "
                                 f"{theirs[1]} bodies and {theirs[2]} cameras, not to "
                                 f"{whose} ({mine[0]}, {mine[1]}, {mine[2]})")  # fmt: skip
    for field in ("geom_type", "geom_size", "geom_dataid"):
        if not np.array_equal(getattr(model, field), getattr(other, field)):
            raise ModelMismatchError(f"{what} belongs to another model: its {field} "
                                     f"differs from {whose} model")  # fmt: skip


def data_worlds(data: Any) -> tuple[str, mujoco.MjModel, int]:
    """(kind, model, worlds) of `data`: 'data' (one MjData), 'sequence' (MjData of one
    model, a world each) or 'batch'; DataError or ModelMismatchError naming what is not."""
    if isinstance(data, mujoco.MjData):
        return "data", data.model, 1
    if BATCH is not None and isinstance(data, BATCH):
        return "batch", data.model, int(data.nsim)
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)) and len(data):
        for world, one in enumerate(data):
            if not isinstance(one, mujoco.MjData):
                raise DataError(f"world {world} is a {type(one).__name__}, not an MjData")
        model = data[0].model
        for world, one in enumerate(data):
            check_same_model(model, one.model, f"world {world}'s data", "world 0's")
        return "sequence", model, len(data)
    hint = (": for MuJoCo's whole picture of a model, hypergl_mujoco.BatchRenderer(model, "
            "context=ctx)" if isinstance(data, mujoco.MjModel) else "")  # fmt: skip
    raise DataError(f"the mujoco bridge takes an MjData, a non-empty sequence of them or a "
                    f"mujoco.batch.Batch, got {type(data).__name__}{hint}")  # fmt: skip


class MujocoBridge:
    """Every world's geoms of `data` as body records: row ``world * ngeom + geom``, id
    ``geom``, position and rotation as MuJoCo computed them (``geom_xpos``, ``geom_xmat``),
    uploaded in C++ by each program that :meth:`record` went into. `groups`: the geom
    groups :meth:`set_looks` draws (MuJoCo's default 0, 1, 2)."""

    def __init__(self, ctx: hypergl.Context, data: Any, *,
                 groups: Sequence[int] = scene.DEFAULT_GROUPS) -> None:  # fmt: skip
        kind, model, worlds = data_worlds(data)
        groups = tuple(groups)
        if not all(isinstance(g, int) and not isinstance(g, bool) for g in groups):
            raise DataError(f"groups must be ints, got {groups!r}")
        self.context: hypergl.Context = ctx
        self.model: mujoco.MjModel = model
        self.num_worlds: int = worlds
        self.looks: list[scene.GeomLook] = scene.model_looks(model, groups)
        self._records = GeomRecords(ctx, model.ngeom, worlds)
        try:
            self._records.feed(geom_source(ctx, data, kind) if model.ngeom else None)
        except BaseException:
            self._records.release()
            raise

    # --- the record source (hypergl.bodies.records) ----------------------------------------
    @property
    def binding(self) -> int:
        return self._records.binding

    @property
    def capacity(self) -> int:
        return self._records.capacity

    def body_glsl(self) -> str:
        return self._records.body_glsl()

    def bind(self, cmd: hypergl.CommandBuffer) -> None:
        self._records.bind(cmd)

    def record(self, cmd: hypergl.CommandBuffer) -> None:
        """The upload of every world's geom poses, in C++ at each submit."""
        self._records.record(cmd)

    # --- the looks ---------------------------------------------------------------------------
    def set_looks(self, renderer: Any) -> None:
        """Each drawn geom's look (its shape, size and colour, as MuJoCo's) on `renderer`,
        a ``hypergl.bodies.BodyRenderer`` over this bridge; a model with meshes needs a
        renderer made with room for them (``max_vertices``: :attr:`library_size`)."""
        for look in self.looks:
            renderer.set_parts(look.geom, look.parts, look.new_meshes, color=look.color)

    @property
    def library_size(self) -> tuple[int, int]:
        """(meshes, triangle rows) the looks add to a body renderer's mesh library."""
        return scene.library_size(self.looks)

    @property
    def records(self) -> Any:
        """The mapped records (row = world * ngeom + geom), as of the last submit."""
        return self._records.records

    def close(self) -> None:
        """Release the records and the C++ source; safe to call twice (later use raises
        hypergl.ResourceError)."""
        self._records.release()

    def __repr__(self) -> str:
        return f"<MujocoBridge {self.num_worlds} worlds x {self.model.ngeom} geoms>"


def mujoco_bridge(ctx: hypergl.Context, data: Any, **options: Any) -> MujocoBridge:
    """The ``hypergl.bridges`` factory: a :class:`MujocoBridge` of `data` in `ctx`."""
    return MujocoBridge(ctx, data, **options)
