"""Poses of every world's geoms and cameras, read in C++ from MjData or a Batch.

``geom_xpos`` (ngeom x 3 float64) and ``geom_xmat`` (ngeom x 9, row-major) of an MjData live
at a fixed address across ``mj_step`` and ``mj_resetData``; ``Batch.bind`` gives live
(nsim, ngeom, ...) arrays. One engine attribute source over all worlds (``owners=`` the
MjData, world after world, or one owner of the Batch's (worlds * ngeom)-row arrays)
converts them into the body renderer's matrix records (``hypergl.bodies.
MATRIX_RECORD_DTYPE``: row = world * ngeom + geom) inside the recorded program: no Python
per world or per geom per frame. The exports are kept between uploads (the arrays never
move).

Camera poses (``cam_xpos``, ``cam_xmat``) go the same way into a mapped buffer by one upload
before each submit (a Batch's bound arrays are read as they are), so that NumPy makes every
view matrix in one call.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import hypergl
from hypergl.bodies import MATRIX_RECORD_DTYPE, InstanceRecords

RECORD = MATRIX_RECORD_DTYPE.itemsize  # 64 bytes: position, id, row-major 3x3
CAMERA_RECORD = 48  # position, row-major 3x3: 12 floats


def pose_fields(matrix_at: int) -> list[dict[str, Any]]:
    """Source 0 (3 f64 a row: a position) to f32 at byte 0 of a record, source 1 (9 f64:
    a row-major rotation) at `matrix_at`."""
    return [{"source": 0, "type": "f64", "stride": 24, "components": 3, "at": 0},
            {"source": 1, "type": "f64", "stride": 72, "components": 9, "at": matrix_at}]  # fmt: skip


class _Arrays:
    """An owner whose attributes are live arrays (attribute sources read attributes)."""

    def __init__(self, **arrays: np.ndarray) -> None:
        self.__dict__.update(arrays)


def _rows(array: np.ndarray, width: int) -> np.ndarray:
    """A live (rows, width) view of a C-contiguous array (never a copy: the source must
    read the owner's memory)."""
    view = array.reshape(-1, width)
    if not np.shares_memory(view, array):
        raise ValueError("pose arrays must be C-contiguous")  # Batch.bind and MjData are
    return view


def pose_source(ctx: hypergl.Context, data: Any, kind: str, prefix: str, matrix_at: int,
                record_size: int) -> hypergl.ExternalSource:  # fmt: skip
    """The source of `prefix`_xpos / `prefix`_xmat ("geom" or "cam") of every world:
    `data` one MjData ('data'), a sequence of them ('sequence') or a Batch ('batch')."""
    names = [f"{prefix}_xpos", f"{prefix}_xmat"]
    fields = pose_fields(matrix_at)
    if kind == "batch":
        owner = _Arrays(**{names[0]: _rows(data.bind(names[0]), 3),
                           names[1]: _rows(data.bind(names[1]), 9)})  # fmt: skip
        return ctx.attribute_source(owner, names, fields, record_size=record_size,
                                    keep_views=True)  # fmt: skip
    owners = [data] if kind == "data" else list(data)
    return ctx.attribute_source(owners=owners, names=names, fields=fields,
                                record_size=record_size, keep_views=True)  # fmt: skip


class GeomRecords(InstanceRecords):
    """The records of `worlds` copies of a model's geoms, filled from `data` each submit
    (already checked against the model by the caller)."""

    def __init__(self, ctx: hypergl.Context, ngeom: int, worlds: int, data: Any,
                 kind: str) -> None:  # fmt: skip
        super().__init__(ctx, worlds * ngeom, rotation="matrix")
        self.records["id"] = np.tile(np.arange(ngeom, dtype=np.uint32), worlds)
        self.count = worlds * ngeom
        self.source = pose_source(ctx, data, kind, "geom", 16, RECORD)

    def record(self, cmd: hypergl.CommandBuffer) -> None:
        """The upload of every world's geom poses (the ids stay: no field writes them)."""
        cmd.upload(self.source, self.buffer)

    def release(self) -> None:
        if not self.source.released:
            self.source.release()
        super().release()


class CameraPoses:
    """Every world's camera poses, ``pull()``-ed into NumPy with one C++ call."""

    def __init__(self, ctx: hypergl.Context, ncam: int, worlds: int, data: Any,
                 kind: str) -> None:  # fmt: skip
        self.ncam, self.worlds = ncam, worlds
        self._ctx = ctx
        self._source: hypergl.ExternalSource | None = None
        self._buffer: hypergl.Buffer | None = None
        self._batch: tuple[np.ndarray, np.ndarray] | None = None
        if ncam == 0:
            return
        if kind == "batch":  # live (worlds, ncam, ...) arrays already: nothing to copy
            self._batch = (data.bind("cam_xpos"), data.bind("cam_xmat"))
            return
        self._buffer = ctx.buffer(size=worlds * ncam * CAMERA_RECORD, name="mujoco_cameras")
        self._view = self._buffer.map(np.float32, (worlds, ncam, 12))
        self._source = pose_source(ctx, data, kind, "cam", 12, CAMERA_RECORD)

    def pull(self) -> tuple[np.ndarray, np.ndarray]:
        """(worlds, ncam, 3) positions and (worlds, ncam, 3, 3) rotations, now."""
        if self._batch is not None:
            xpos, xmat = self._batch
            return xpos, xmat.reshape(self.worlds, self.ncam, 3, 3)
        if self._source is None:
            return np.zeros((self.worlds, 0, 3)), np.zeros((self.worlds, 0, 3, 3))
        self._ctx.upload(self._source, self._buffer)
        view = self._view
        return view[..., :3], view[..., 3:].reshape(self.worlds, self.ncam, 3, 3)

    def release(self) -> None:
        for resource in (self._source, self._buffer):
            if resource is not None and not resource.released:
                resource.release()
