"""NumPy rasterizer vectorised across triangles.

Each triangle is cut into rows; for every (triangle, row) pair the exact covered span of pixel
centres is solved from the three integer edge functions at once (floor/ceil divisions, so the
top-left rule holds exactly).  The spans of the whole batch are expanded into one array of
fragments, their depth is computed with the reference formula, and depth is resolved for all
fragments at once (minimum ``z`` per pixel, ties to the triangle drawn first).  The result is
bit-identical to the CPU reference.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ..buffers import ColorLike, FrameBuffer
from ..convention import HALF_PIXEL, SUBPIXEL
from ..geometry import RasterBatch
from ._setup import setup
from .lifecycle import Backend
from .protocol import BackendCapabilities, BatchHandle, check_render_args, frame_for

_CHUNK = 1 << 22  # bounding-box pixels per step (bounds memory for huge triangles)
_NONE = np.iinfo(np.int64).max


def _spans(s, rows: np.ndarray):
    """Covered spans of triangles ``rows``: ``(tri, y, lo, hi, e_lo, a)`` (the last two are
    lists of three 1-D arrays, one per edge).

    Per (triangle, row) each edge function is ``E(x) = a * x + c`` at pixel centre ``x``; the
    span is where all three satisfy ``E >= bias``, solved with exact integer floor division.
    """
    heights = s.bbox[rows, 3] - s.bbox[rows, 2] + 1
    tri = np.repeat(rows, heights)
    first = np.cumsum(heights) - heights
    y = np.repeat(s.bbox[rows, 2] - first, heights) + np.arange(tri.size)
    lo = np.repeat(s.bbox[rows, 0], heights)
    hi = np.repeat(s.bbox[rows, 1], heights)
    py = y * SUBPIXEL + HALF_PIXEL
    X, Y, bias = s.X[rows], s.Y[rows], s.bias[rows]
    a_all, c_all = [], []
    empty = np.zeros(tri.size, dtype=bool)
    for k in range(3):
        i, j = (k + 1) % 3, (k + 2) % 3
        dx = X[:, j] - X[:, i]
        dy = Y[:, j] - Y[:, i]
        a_t = -dy * SUBPIXEL
        c0_t = -dy * (HALF_PIXEL - X[:, i]) - dx * Y[:, i]
        c = np.repeat(dx, heights) * py + np.repeat(c0_t, heights)
        need = np.repeat(bias[:, k], heights) - c  # covered where a * x >= need
        a = np.repeat(a_t, heights)
        sign = np.sign(a_t)
        if (sign > 0).any():
            pos = np.repeat(sign > 0, heights)
            lo[pos] = np.maximum(lo[pos], -((-need[pos]) // a[pos]))
        if (sign < 0).any():
            neg = np.repeat(sign < 0, heights)
            hi[neg] = np.minimum(hi[neg], need[neg] // a[neg])  # floor division, exact
        if (sign == 0).any():
            empty |= (a == 0) & (need > 0)
        a_all.append(a)
        c_all.append(c)
    keep = np.flatnonzero((hi >= lo) & ~empty)
    lo = lo[keep]
    a_kept = [column[keep] for column in a_all]
    e_lo = [c[keep] + a_k * lo for c, a_k in zip(c_all, a_kept, strict=True)]
    return tri[keep], y[keep], lo, hi[keep], e_lo, a_kept


class _Workspace:
    """Reusable scratch arrays, grown when needed (one per thread)."""

    def __init__(self) -> None:
        self._arrays: dict[tuple[str, str], np.ndarray] = {}
        self._arange = np.arange(0, dtype=np.int32)

    def array(self, name: str, size: int, dtype) -> np.ndarray:
        key = (name, np.dtype(dtype).str)
        current = self._arrays.get(key)
        if current is None or current.size < size:
            current = np.empty(max(size, int(size * 1.25), 1024), dtype=dtype)
            self._arrays[key] = current
        return current[:size]

    def arange(self, size: int) -> np.ndarray:
        if self._arange.size < size:
            self._arange = np.arange(max(size, int(size * 1.25)), dtype=np.int32)
        return self._arange[:size]


_local = threading.local()


def _workspace() -> _Workspace:
    ws = getattr(_local, "workspace", None)
    if ws is None:
        ws = _local.workspace = _Workspace()
    return ws


def _exact_z(e_lo, a, offset, Z, area):
    """The reference depth ``(e0*z0 + e1*z1 + e2*z2) / area`` at ``offset`` pixels into spans.

    ``e_lo``, ``a`` and ``Z`` are sequences of three 1-D arrays (one per vertex/edge).
    """
    e = [(e_lo[k] + a[k] * offset).astype(np.float64) for k in range(3)]
    return (e[0] * Z[0] + e[1] * Z[1] + e[2] * Z[2]) / area.astype(np.float64)


def _resolve_chunk(s, rows, width, depth, ids, first: bool, only: bool, need_depth: bool) -> None:
    """Rasterize triangles ``rows`` into ``depth``/``ids`` (bit-identical to the reference).

    Depth is resolved in two steps: every fragment gets a cheap float32 planar depth (the exact
    depth at its span start plus a per-triangle slope), the minimum per pixel is found, and only
    fragments within a rounding bound of it get the exact reference depth and compete exactly.
    ``only``: this is the only chunk; ``need_depth``: ``depth`` must hold the winners' depths
    (otherwise it may be left incomplete).
    """
    tri, y, lo, hi, e_lo, a = _spans(s, rows)
    if tri.size == 0:
        return
    # 1-D per-span columns: gathering rows of 2-D arrays is several times slower.
    Z = [np.ascontiguousarray(s.Z[:, k])[tri] for k in range(3)]
    area = s.area[tri]
    z_lo = _exact_z(e_lo, a, 0, Z, area)
    slope = (a[0] * Z[0] + a[1] * Z[1] + a[2] * Z[2]) / area.astype(np.float64)
    length = hi - lo + 1
    start = np.cumsum(length) - length
    total = int(length.sum())
    zmax = max(float(np.abs(column).max()) for column in Z)
    if zmax < 1e30 and total < (1 << 24):
        # float32 planar depth: each term is bounded by 3 * max|z| and within a few float32
        # ulps, so 1e-6 * max|z| bounds its distance from the exact depth with a wide margin.
        kind, eta = np.float32, 1e-6 * zmax
    else:
        kind, eta = np.float64, 1e-13 * zmax
    # Per-fragment arrays live in a reusable workspace: fresh multi-megabyte allocations cost
    # more in page faults than the arithmetic itself.  Per-span values are expanded with
    # ``take`` on the fragment's span index (built with a cumulative sum).
    ws = _workspace()
    span_of = ws.array("span", total, np.int32)
    marks = ws.array("marks", total, np.int32)
    marks.fill(0)
    marks[start[1:]] = 1
    np.cumsum(marks, out=span_of)
    offset = ws.array("offset", total, np.int32)
    np.take(start.astype(np.int32), span_of, out=offset, mode="clip")
    np.subtract(ws.arange(total), offset, out=offset)
    pixel = ws.array("pixel", total, np.int32)
    np.take((y * width + lo).astype(np.int32), span_of, out=pixel, mode="clip")
    pixel += offset
    approx = ws.array("approx", total, kind)
    scratch = ws.array("scratch", total, kind)
    np.take(slope.astype(kind), span_of, out=approx, mode="clip")
    np.multiply(approx, offset, out=approx, casting="unsafe")
    np.take(z_lo.astype(kind), span_of, out=scratch, mode="clip")
    approx += scratch
    nearest = depth.astype(kind)
    np.minimum.at(nearest, pixel, approx)
    nearest += kind(2 * eta + 1e-30)
    np.take(nearest, pixel, out=scratch, mode="clip")
    close = ws.array("close", total, np.bool_)
    np.less_equal(approx, scratch, out=close)
    candidates = np.flatnonzero(close)
    span = span_of[candidates]
    pixel = pixel[candidates]
    order = s.index[tri[span]]
    if only:
        # A pixel with a single candidate has its winner: the nearest fragment is always a
        # candidate.  Only pixels with several candidates need exact depths (and, for
        # ``rasterize_ids``, the winners' depth values).
        counts = np.bincount(pixel, minlength=depth.size)
        several = counts[pixel] > 1
        sole = ~several
        ids[pixel[sole]] = order[sole]
        if need_depth:
            depth[pixel[sole]] = _exact_z(
                [c[span[sole]] for c in e_lo],
                [c[span[sole]] for c in a],
                candidates[sole] - start[span[sole]],
                [c[span[sole]] for c in Z],
                area[span[sole]],
            )
        keep = np.flatnonzero(several)
        span, pixel, order, candidates = span[keep], pixel[keep], order[keep], candidates[keep]
    z = _exact_z(
        [c[span] for c in e_lo],
        [c[span] for c in a],
        candidates - start[span],
        [c[span] for c in Z],
        area[span],
    )
    before = None if first else depth[pixel]
    np.minimum.at(depth, pixel, z)
    win = z == depth[pixel]
    if before is not None:
        win &= z < before  # an earlier chunk keeps equal depths (drawn first)
    best = np.full(depth.size, _NONE, dtype=np.int64)
    np.minimum.at(best, pixel[win], order[win])
    covered = best != _NONE
    ids[covered] = best[covered]


def rasterize_arrays(xyz: np.ndarray, width: int, height: int, need_depth: bool = True):
    """``(ids, depth)`` flat arrays (``height * width``) for float64 ``(N, 3, 3)`` positions.

    With ``need_depth=False`` the depth array is not meaningful (saves work in ``render``).
    """
    s = setup(xyz, width, height)
    ids = np.full(width * height, -1, dtype=np.int32)
    depth = np.full(width * height, np.inf, dtype=np.float64)
    if s.index.size == 0:
        return ids, depth
    boxes = (s.bbox[:, 1] - s.bbox[:, 0] + 1) * (s.bbox[:, 3] - s.bbox[:, 2] + 1)
    # Chunks of consecutive triangles (draw order) bounded in total bounding-box area.
    bounds = np.searchsorted(np.cumsum(boxes), np.arange(1, 1 + boxes.sum() // _CHUNK) * _CHUNK)
    chunks = [rows for rows in np.split(np.arange(s.index.size), np.unique(bounds)) if rows.size]
    for number, rows in enumerate(chunks):
        _resolve_chunk(s, rows, width, depth, ids, number == 0, len(chunks) == 1, need_depth)
    return ids, depth


def shade_flat(ids: np.ndarray, rgb: np.ndarray, background, out=None) -> np.ndarray:
    """RGB rows for flat-coloured triangles from a flat ids array (``-1``: background)."""
    palette = np.concatenate([rgb, np.asarray([background], dtype=np.uint8)])
    # mode="wrap" sends -1 to the last palette row, the background.
    return np.take(palette, ids, axis=0, out=out, mode="wrap")


class NumpyBackend(Backend):
    """Vectorised screen-space raster backend for machines with NumPy."""

    name = "numpy"
    capabilities: BackendCapabilities = BackendCapabilities(
        name="NumPy screen-space rasterizer",
        accelerated=True,
        supports_depth=True,
        supports_ids=True,
        api="cpu",
        priority=20,
    )

    @classmethod
    def probe(cls) -> str | None:
        return None  # importing this module already needed NumPy

    def render(
        self,
        batch: RasterBatch | BatchHandle,
        width: int,
        height: int,
        *,
        background: ColorLike = (0, 0, 0),
        target: FrameBuffer | None = None,
    ) -> FrameBuffer:
        batch, width, height, bg = check_render_args(batch, width, height, background, target)
        xyz, rgb = batch.arrays()
        ids, _ = rasterize_arrays(xyz, width, height, need_depth=False)
        frame = frame_for(target, width, height)
        shade_flat(ids, rgb, bg, out=frame.to_numpy().reshape(-1, 3))
        return frame

    def rasterize_ids(self, batch: RasterBatch, width: int, height: int) -> tuple[Any, Any]:
        batch, width, height, _ = check_render_args(batch, width, height, (0, 0, 0), None)
        ids, depth = rasterize_arrays(batch.arrays()[0], width, height)
        return ids.reshape(height, width), depth.reshape(height, width)
