"""Poses of every world's geoms and cameras, read in C++ from MjData or a Batch.

``geom_xpos`` (ngeom x 3 float64) and ``geom_xmat`` (ngeom x 9, row-major) of an MjData live
at a fixed address across ``mj_step`` and ``mj_resetData``; ``Batch.bind`` gives live
(nsim, ngeom, ...) arrays. The engine's attribute sources convert them into the body
renderer's matrix records (``hypergl.bodies.MATRIX_RECORD_DTYPE``: row = world * ngeom +
geom) inside the recorded program: no Python per world or per geom per frame.

* one MjData, or a Batch: one source over the owner's (worlds * ngeom)-row arrays, uploaded
  straight into the records;
* a sequence of MjData: one source per world into a staging buffer, copied into its rows
  by the GPU, all recorded once (the engine's many-owner source makes this one source).

Camera poses (``cam_xpos``, ``cam_xmat``) go to a mapped buffer by one upload before each
submit, laid out (ncam, worlds, 12) so that NumPy makes every view matrix in one call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import hypergl
from hypergl.bodies import MATRIX_RECORD_DTYPE, InstanceRecords

RECORD = MATRIX_RECORD_DTYPE.itemsize  # 64 bytes: position, id, row-major 3x3


def pose_fields(xpos: int, xmat: int, position_at: int = 0, matrix_at: int = 16
                ) -> list[dict[str, Any]]:  # fmt: skip
    """Fields converting source `xpos` (3 f64 a row) and `xmat` (9 f64) to f32 at bytes
    `position_at` and `matrix_at` of a record; the matrix as three 3-component copies
    (the engine's typed loops take 1..4 components)."""
    fields = [{"source": xpos, "type": "f64", "stride": 24, "components": 3,
               "at": position_at}]  # fmt: skip
    for row in range(3):
        fields.append({"source": xmat, "type": "f64", "stride": 72, "offset": 24 * row,
                       "components": 3, "at": matrix_at + 12 * row})  # fmt: skip
    return fields


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


class GeomRecords(InstanceRecords):
    """The records of `worlds` copies of a model's geoms, filled from `data` each submit.

    `data` is one MjData (worlds 1), a sequence of MjData, or a ``mujoco.batch.Batch``
    (already checked against the model by the caller)."""

    def __init__(self, ctx: hypergl.Context, ngeom: int, worlds: int, data: Any,
                 kind: str) -> None:  # fmt: skip
        super().__init__(ctx, worlds * ngeom, rotation="matrix")
        self.ngeom, self.worlds = ngeom, worlds
        self.records["id"] = np.tile(np.arange(ngeom, dtype=np.uint32), worlds)
        self.count = worlds * ngeom
        self._uploads: list[tuple[hypergl.ExternalSource, hypergl.Buffer]] = []
        self._copies: list[tuple[hypergl.Buffer, int]] = []
        fields = pose_fields(0, 1)
        if kind == "sequence":
            for world, one in enumerate(data):
                staging = ctx.buffer(size=ngeom * RECORD, name=f"mujoco_world{world}")
                # The copy takes whole records: the ids must be in the staging rows too.
                staging.map(MATRIX_RECORD_DTYPE, ngeom)[:] = self.records[:ngeom]
                source = ctx.attribute_source(one, ["geom_xpos", "geom_xmat"], fields,
                                              record_size=RECORD)  # fmt: skip
                self._uploads.append((source, staging))
                self._copies.append((staging, world * ngeom * RECORD))
        else:
            owner = data if kind == "data" else _Arrays(
                geom_xpos=_rows(data.bind("geom_xpos"), 3),
                geom_xmat=_rows(data.bind("geom_xmat"), 9),
            )
            source = ctx.attribute_source(owner, ["geom_xpos", "geom_xmat"], fields,
                                          record_size=RECORD)  # fmt: skip
            self._uploads.append((source, self.buffer))

    def record(self, cmd: hypergl.CommandBuffer) -> None:
        """The uploads (and, per world of a sequence, the GPU copy into its rows)."""
        for source, target in self._uploads:
            cmd.upload(source, target)
        if self._copies:
            cmd.barrier()
        for staging, offset in self._copies:
            cmd.copy_buffer(staging, self.buffer, self.ngeom * RECORD, dst_offset=offset)

    def release(self) -> None:
        for source, target in self._uploads:
            if not source.released:
                source.release()
            if target is not self.buffer and not target.released:
                target.release()
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
        owners: Sequence[Any] = [data] if kind == "data" else data
        # One source over all worlds: record = camera, world w's pose at byte 48 w.
        arrays, fields = {}, []
        for world, one in enumerate(owners):
            arrays[f"xpos{world}"], arrays[f"xmat{world}"] = one.cam_xpos, one.cam_xmat
            fields += pose_fields(2 * world, 2 * world + 1, 48 * world, 48 * world + 12)
        names = list(arrays)
        self._buffer = ctx.buffer(size=ncam * worlds * 48, name="mujoco_cameras")
        self._view = self._buffer.map(np.float32, (ncam, worlds, 12))
        self._source = ctx.attribute_source(_Arrays(**arrays), names, fields,
                                            record_size=48 * worlds)  # fmt: skip

    def pull(self) -> tuple[np.ndarray, np.ndarray]:
        """(worlds, ncam, 3) positions and (worlds, ncam, 3, 3) rotations, now."""
        if self._batch is not None:
            xpos, xmat = self._batch
            return xpos, xmat.reshape(self.worlds, self.ncam, 3, 3)
        if self._source is None:
            empty = np.zeros((self.worlds, 0, 3))
            return empty, empty.reshape(self.worlds, 0, 1, 3).repeat(3, axis=2)
        self._ctx.upload(self._source, self._buffer)
        view = self._view.transpose(1, 0, 2)
        return view[..., :3], view[..., 3:].reshape(self.worlds, self.ncam, 3, 3)

    def release(self) -> None:
        for resource in (self._source, self._buffer):
            if resource is not None and not resource.released:
                resource.release()
