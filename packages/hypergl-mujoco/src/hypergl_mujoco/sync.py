"""Poses of every world's geoms and cameras, read in C++ from MjData or a Batch.

``geom_xpos`` (ngeom x 3 float64) and ``geom_xmat`` (ngeom x 9, row-major) of an MjData live
at a fixed address across ``mj_step`` and ``mj_resetData``; ``Batch.bind`` gives live
(nsim, ngeom, ...) arrays. One engine attribute source over all worlds (``owners=`` the
MjData, world after world, or one owner of the Batch's (worlds * ngeom)-row arrays)
converts them into the body renderer's matrix records (``hypergl.bodies.
MATRIX_RECORD_DTYPE``: row = world * ngeom + geom) inside the recorded program: no Python
per world or per geom per frame. The exports are kept between uploads (the arrays never
move).

Camera poses (``cam_xpos``, ``cam_xmat``; ``subtree_com`` for tracking MjvCameras) go the
same way into mapped buffers, one upload each before each submit (a Batch's bound arrays
are read as they are), so that NumPy makes every view matrix in one call.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import hypergl
from hypergl.bodies import MATRIX_RECORD_DTYPE, InstanceRecords
from hypergl.serialised import closing, serialised

RECORD = MATRIX_RECORD_DTYPE.itemsize  # 64 bytes: position, id, row-major 3x3


# geom_xpos (3 f64 a row) to f32 at byte 0 of a record, geom_xmat (9 f64) at byte 16.
GEOM_FIELDS = [{"source": 0, "type": "f64", "stride": 24, "components": 3, "at": 0},
               {"source": 1, "type": "f64", "stride": 72, "components": 9, "at": 16}]  # fmt: skip


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


def geom_source(ctx: hypergl.Context, data: Any, kind: str, element: str = "geom"
                ) -> hypergl.ExternalSource:  # fmt: skip
    """The source of every world's geom_xpos / geom_xmat (`element` "site": site_xpos /
    site_xmat) as matrix records: `data` one MjData ('data'), a sequence of them
    ('sequence') or a Batch ('batch')."""
    names, fields, record_size = [f"{element}_xpos", f"{element}_xmat"], GEOM_FIELDS, RECORD
    if kind == "batch":
        owner = _Arrays(**{names[0]: _rows(data.bind(names[0]), 3),
                           names[1]: _rows(data.bind(names[1]), 9)})  # fmt: skip
        return ctx.attribute_source(owner, names, fields, record_size=record_size,
                                    keep_views=True)  # fmt: skip
    owners = [data] if kind == "data" else list(data)
    return ctx.attribute_source(owners=owners, names=names, fields=fields,
                                record_size=record_size, keep_views=True)  # fmt: skip


class GeomRecords(InstanceRecords):
    """The records of `worlds` copies of a model's geoms (`element` "site": its sites, ids
    from `first_id` on), filled each submit from the data whose source :meth:`feed` gave
    (None: nothing uploads, as for a model without geoms, whose source would have no rows
    to read)."""

    def __init__(self, ctx: hypergl.Context, ngeom: int, worlds: int, element: str = "geom",
                 first_id: int = 0) -> None:  # fmt: skip
        self.element = element
        super().__init__(ctx, max(worlds * ngeom, 1), rotation="matrix")  # a row at least
        ids = np.arange(first_id, first_id + ngeom, dtype=np.uint32)
        self.records["id"][: worlds * ngeom] = np.tile(ids, worlds)
        self.count = worlds * ngeom
        self.source: hypergl.ExternalSource | None = None

    @serialised
    def feed(self, source: hypergl.ExternalSource | None) -> hypergl.ExternalSource | None:
        """Upload from `source` in the programs recorded from now on; the previous one."""
        previous, self.source = self.source, source
        return previous

    @serialised
    def record(self, cmd: hypergl.CommandBuffer) -> None:
        """The upload of every world's geom poses (the ids stay: no field writes them)."""
        if self.source is not None:
            cmd.upload(self.source, self.buffer)

    @closing
    def release(self) -> None:
        release_source(self.feed(None))
        super().release()


def release_source(source: hypergl.ExternalSource | None) -> None:
    if source is not None and not source.released:
        source.release()


class WorldArrays:
    """Per-world arrays the CPU needs each frame (camera poses, tracked bodies' centres),
    ``pull()``-ed into NumPy with one C++ upload each: (worlds, rows, width) float64 (a
    Batch's bound arrays are read as they are)."""

    def __init__(self, ctx: hypergl.Context, data: Any, kind: str,
                 arrays: dict[str, tuple[int, ...]]) -> None:  # fmt: skip
        """`arrays`: MjData field name -> (rows, width) of one world, float64, or (rows,
        width, 1) for an int32 field (``wrap_obj``, ``ten_wrapadr``: pulled as int32)."""
        self._ctx = ctx
        self._batch: dict[str, np.ndarray] = {}
        self._sources: list[tuple[hypergl.ExternalSource, hypergl.Buffer]] = []
        self._views: dict[str, np.ndarray] = {}
        worlds = data.nsim if kind == "batch" else 1 if kind == "data" else len(data)
        for name, (rows, width, *integer) in arrays.items():
            if kind == "batch":  # live arrays already: nothing to copy
                self._batch[name] = data.bind(name).reshape(worlds, rows, width)
                continue
            kind_of, size, dtype = ("i32", 4, np.int32) if integer else ("f64", 8, np.float64)
            field = {"source": 0, "type": kind_of, "stride": size * width,
                     "components": width, "to": kind_of}  # fmt: skip
            owners = [data] if kind == "data" else list(data)
            source = ctx.attribute_source(owners=owners, names=[name], fields=[field],
                                          record_size=size * width, keep_views=True)  # fmt: skip
            buffer = ctx.buffer(size=max(worlds * rows * width * size, 8), name=f"mujoco_{name}")
            self._sources.append((source, buffer))
            self._views[name] = buffer.map(dtype, (worlds, rows, width))

    def pull(self) -> dict[str, np.ndarray]:
        """Every array, as of now."""
        for source, buffer in self._sources:
            self._ctx.upload(source, buffer)
        return {**self._batch, **self._views}

    def release(self) -> None:
        for source, buffer in self._sources:
            for resource in (source, buffer):
                if not resource.released:
                    resource.release()
