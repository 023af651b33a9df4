"""Shaders, layouts and geometry shared by the GL tests (this folder is on pythonpath)."""

from __future__ import annotations

import numpy as np

# A pipeline that draws 2D positions (location 0) with a per-instance offset
# (location 1) and a per-instance colour (location 2).
VS_2D = """#version 430
layout(location = 0) in vec2 position;
layout(location = 1) in vec2 offset;
layout(location = 2) in vec4 tint;
out vec4 v_tint;
layout(location = 0) uniform float depth;
void main() {
    v_tint = tint;
    gl_Position = vec4(position + offset, depth, 1.0);
}
"""
FS_2D = """#version 430
in vec4 v_tint;
out vec4 color;
void main() { color = v_tint; }
"""
LAYOUT_2D = [
    {"binding": 0, "stride": 8, "attributes": [{"location": 0, "format": "f32x2"}]},
    {
        "binding": 1,
        "stride": 24,
        "per_instance": True,
        "attributes": [
            {"location": 1, "format": "f32x2", "offset": 0},
            {"location": 2, "format": "f32x4", "offset": 8},
        ],
    },
]


def quad(half: float):
    """Two triangles covering [-half, half]^2 in clip space."""
    h = half
    return np.array([-h, -h, h, -h, h, h, -h, -h, h, h, -h, h], dtype="f4")


def instances(rows):
    """Per-instance records (x, y, r, g, b, a) as float32."""
    return np.array(rows, dtype="f4").reshape(-1, 6)
