"""The layout of a soft vertex (16 bytes of :attr:`BodyRenderer.soft_vertices`): its world
position and, for a smooth part (``Part(mode=MODE_SOFT, smooth=True)``), its unit normal
packed into 32 bits: octahedral coordinates as two signed 16-bit norms (``packSnorm2x16``),
within 1e-4 radians of the normal. A flat part's last word is not read (its faces'
normals come from their points).

:data:`SOFT_VERTEX_GLSL` declares the struct and the packing for a compute shader that
writes soft vertices; :func:`pack_normals` is the same packing in NumPy, for a caller who
fills them from the CPU (``view.view(np.uint32)[:, 3] = pack_normals(normals)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import BodyError

SOFT_VERTEX_GLSL = """
struct SoftVertex { vec3 position; uint normal; };  // std430: 16 bytes
// n (any length, not 0) as octahedral coordinates in two snorm16s: the inverse of soft_normal
uint pack_soft_normal(vec3 n) {
    n /= max(abs(n.x) + abs(n.y) + abs(n.z), 1e-30);
    vec2 side = vec2(n.x >= 0.0 ? 1.0 : -1.0, n.y >= 0.0 ? 1.0 : -1.0);
    vec2 p = n.z >= 0.0 ? n.xy : (1.0 - abs(n.yx)) * side;
    return packSnorm2x16(p);
}
vec3 soft_normal(uint bits) {
    vec2 p = unpackSnorm2x16(bits);
    vec3 n = vec3(p, 1.0 - abs(p.x) - abs(p.y));
    float t = max(-n.z, 0.0);
    n.xy += vec2(n.x >= 0.0 ? -t : t, n.y >= 0.0 ? -t : t);
    return normalize(n);
}
"""


def pack_normals(normals: Any) -> np.ndarray:
    """(N, 3) normals (any length but 0) -> (N,) uint32, as ``pack_soft_normal`` packs."""
    try:
        n = np.asarray(normals, np.float64)
    except (TypeError, ValueError):
        raise BodyError(f"normals must be an (N, 3) array of numbers, got {normals!r}") from None
    if n.ndim != 2 or n.shape[1] != 3:
        raise BodyError(f"normals must be an (N, 3) array, got shape {n.shape}")
    if not np.isfinite(n).all():
        raise BodyError("normals must be finite (a NaN or an infinity was given)")
    length = np.abs(n).sum(axis=1)
    if (length == 0).any():
        bad = int(np.flatnonzero(length == 0)[0])
        raise BodyError(f"normal {bad} is zero: a normal needs a direction")
    n = n / length[:, None]
    sign = np.where(n[:, :2] >= 0.0, 1.0, -1.0)
    p = np.where(n[:, 2:] >= 0.0, n[:, :2], (1.0 - np.abs(n[:, 1::-1])) * sign)
    snorm = np.rint(np.clip(p, -1.0, 1.0) * 32767.0).astype(np.int16).view(np.uint16)
    return snorm[:, 0].astype(np.uint32) | (snorm[:, 1].astype(np.uint32) << 16)
