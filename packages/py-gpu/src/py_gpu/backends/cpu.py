"""The pure-Python reference rasterizer: the executable definition of
:mod:`py_gpu.convention`.  Needs nothing but the standard library."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..buffers import ColorLike, FrameBuffer
from ..convention import HALF_PIXEL, SUBPIXEL, SUBPIXEL_BITS
from ..geometry import RasterBatch, RawTriangle
from .lifecycle import Backend
from .protocol import BackendCapabilities, check_render_args, deliver

INF = float("inf")


def setup_triangle(raw: RawTriangle, width: int, height: int):
    """Integer set-up of one triangle, or ``None`` when it covers no pixel centre's bounding box.

    Returns ``(verts, area, edges, bbox)`` where ``verts`` are the (possibly reordered) snapped
    vertices ``(X, Y, z)``, ``edges`` are ``(start_index, end_index, bias)`` per weight and
    ``bbox`` is ``(x0, x1, y0, y1)`` inclusive pixel bounds.
    """
    x0, y0 = round(raw[0] * SUBPIXEL), round(raw[1] * SUBPIXEL)
    x1, y1 = round(raw[3] * SUBPIXEL), round(raw[4] * SUBPIXEL)
    x2, y2 = round(raw[6] * SUBPIXEL), round(raw[7] * SUBPIXEL)
    z0, z1, z2 = raw[2], raw[5], raw[8]
    area = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0)
    if area == 0:
        return None
    if area < 0:  # make the winding positive (clockwise on a y-down screen): swap 1 and 2
        x1, y1, z1, x2, y2, z2 = x2, y2, z2, x1, y1, z1
        area = -area
    # Pixel centres (i + 0.5) * 256 inside [min, max] of the vertices.
    lo_x, hi_x = min(x0, x1, x2), max(x0, x1, x2)
    lo_y, hi_y = min(y0, y1, y2), max(y0, y1, y2)
    bx0 = max(0, -((HALF_PIXEL - lo_x) >> SUBPIXEL_BITS))
    bx1 = min(width - 1, (hi_x - HALF_PIXEL) >> SUBPIXEL_BITS)
    by0 = max(0, -((HALF_PIXEL - lo_y) >> SUBPIXEL_BITS))
    by1 = min(height - 1, (hi_y - HALF_PIXEL) >> SUBPIXEL_BITS)
    if bx0 > bx1 or by0 > by1:
        return None
    return (x0, y0, z0, x1, y1, z1, x2, y2, z2), area, (bx0, bx1, by0, by1)


def edge_bias(xs: int, ys: int, xe: int, ye: int) -> int:
    """0 for a top or left edge (a centre on it is covered), 1 otherwise."""
    dy = ye - ys
    return 0 if dy < 0 or (dy == 0 and xe - xs > 0) else 1


def rasterize(
    triangles: Iterable[RawTriangle],
    width: int,
    height: int,
    visit,
) -> None:
    """Run the reference rasterizer; ``visit(index, pixel_index, z)`` sees every covered pixel
    centre of triangle ``index``, in draw order."""
    for index, raw in enumerate(triangles):
        setup = setup_triangle(raw, width, height)
        if setup is None:
            continue
        (x0, y0, z0, x1, y1, z1, x2, y2, z2), area, (bx0, bx1, by0, by1) = setup
        area_f = float(area)
        b0 = edge_bias(x1, y1, x2, y2)
        b1 = edge_bias(x2, y2, x0, y0)
        b2 = edge_bias(x0, y0, x1, y1)
        px0 = bx0 * SUBPIXEL + HALF_PIXEL
        for y in range(by0, by1 + 1):
            py = y * SUBPIXEL + HALF_PIXEL
            # Edge functions at the first centre of the row; they change by -dy * 256 per pixel.
            e0 = (x2 - x1) * (py - y1) - (y2 - y1) * (px0 - x1)
            e1 = (x0 - x2) * (py - y2) - (y0 - y2) * (px0 - x2)
            e2 = (x1 - x0) * (py - y0) - (y1 - y0) * (px0 - x0)
            s0 = -(y2 - y1) * SUBPIXEL
            s1 = -(y0 - y2) * SUBPIXEL
            s2 = -(y1 - y0) * SUBPIXEL
            row = y * width
            for x in range(bx0, bx1 + 1):
                if e0 >= b0 and e1 >= b1 and e2 >= b2:
                    z = (e0 * z0 + e1 * z1 + e2 * z2) / area_f
                    visit(index, row + x, z)
                e0 += s0
                e1 += s1
                e2 += s2


class CpuBackend(Backend):
    """Small dependency-free raster backend: the correctness reference and last fallback."""

    name = "cpu"
    capabilities: BackendCapabilities = BackendCapabilities(
        name="CPU screen-space rasterizer",
        accelerated=False,
        supports_depth=True,
        supports_ids=True,
        api="cpu",
        priority=0,
    )

    @classmethod
    def probe(cls) -> str | None:
        return None

    def render(
        self,
        batch: RasterBatch,
        width: int,
        height: int,
        *,
        background: ColorLike = (0, 0, 0),
        target: FrameBuffer | None = None,
    ) -> FrameBuffer:
        batch, width, height, bg = check_render_args(batch, width, height, background, target)
        pixels = bytearray(bytes(bg) * (width * height))
        depth = [INF] * (width * height)
        colors = []

        def visit(index: int, pixel: int, z: float) -> None:
            if z < depth[pixel]:
                depth[pixel] = z
                offset = pixel * 3
                pixels[offset : offset + 3] = colors[index]

        def triangles():
            for raw in batch.raw_triangles():
                colors.append(bytes(raw[9:12]))
                yield raw

        rasterize(triangles(), width, height, visit)
        return deliver(pixels, width, height, target)

    def rasterize_ids(self, batch: RasterBatch, width: int, height: int) -> tuple[Any, Any]:
        """``(ids, depth)`` NumPy arrays of the winning triangle and its ``z`` per pixel."""
        import numpy as np

        batch, width, height, _ = check_render_args(batch, width, height, (0, 0, 0), None)
        depth = [INF] * (width * height)
        ids = [-1] * (width * height)

        def visit(index: int, pixel: int, z: float) -> None:
            if z < depth[pixel]:
                depth[pixel] = z
                ids[pixel] = index

        rasterize(batch.raw_triangles(), width, height, visit)
        return (
            np.asarray(ids, dtype=np.int32).reshape(height, width),
            np.asarray(depth, dtype=np.float64).reshape(height, width),
        )
