"""Meshes of the demo, made in NumPy: interleaved position, normal, colour."""

from __future__ import annotations

import numpy as np

# Vertex record: position xyz, normal xyz, colour rgb (9 float32).
VERTEX_LAYOUT = [
    {
        "binding": 0,
        "stride": 36,
        "attributes": [
            {"location": 0, "format": "f32x3", "offset": 0},
            {"location": 1, "format": "f32x3", "offset": 12},
            {"location": 2, "format": "f32x3", "offset": 24},
        ],
    }
]


def _cone(radius: float, y0: float, y1: float, sides: int, colour) -> tuple[np.ndarray, list]:
    """A closed cone (y1 apex) or, with radius pairs, nothing fancier: side triangles only."""
    angles = np.linspace(0, 2 * np.pi, sides, endpoint=False)
    vertices, indices = [], []
    slope = radius / (y1 - y0)
    for k, a in enumerate(angles):
        b = angles[(k + 1) % sides]
        mid = (a + b) / 2
        normal = np.array([np.cos(mid), slope, np.sin(mid)])
        normal /= np.linalg.norm(normal)
        base = len(vertices)
        for point in ((radius * np.cos(a), y0, radius * np.sin(a)),
                      (radius * np.cos(b), y0, radius * np.sin(b)), (0.0, y1, 0.0)):  # fmt: skip
            vertices.append((*point, *normal, *colour))
        indices += [base, base + 2, base + 1]
    return np.array(vertices, np.float32), indices


def _prism(radius: float, y0: float, y1: float, sides: int, colour) -> tuple[np.ndarray, list]:
    angles = np.linspace(0, 2 * np.pi, sides, endpoint=False)
    vertices, indices = [], []
    for k, a in enumerate(angles):
        b = angles[(k + 1) % sides]
        mid = (a + b) / 2
        normal = (np.cos(mid), 0.0, np.sin(mid))
        base = len(vertices)
        for x, z in ((np.cos(a), np.sin(a)), (np.cos(b), np.sin(b))):
            vertices.append((radius * x, y0, radius * z, *normal, *colour))
            vertices.append((radius * x, y1, radius * z, *normal, *colour))
        indices += [base, base + 1, base + 2, base + 2, base + 1, base + 3]
    return np.array(vertices, np.float32), indices


def tree() -> tuple[np.ndarray, np.ndarray]:
    """A trunk and two stacked crowns; (vertices (N, 9) float32, indices uint32)."""
    parts = [
        _prism(0.12, 0.0, 0.7, 6, (0.42, 0.27, 0.14)),
        _cone(0.75, 0.5, 1.7, 8, (0.13, 0.45, 0.18)),
        _cone(0.55, 1.2, 2.3, 8, (0.18, 0.55, 0.22)),
    ]
    vertices, indices, offset = [], [], 0
    for part_vertices, part_indices in parts:
        vertices.append(part_vertices)
        indices += [i + offset for i in part_indices]
        offset += len(part_vertices)
    return np.concatenate(vertices), np.array(indices, np.uint32)


def ground(
    half: float, colour: tuple[float, float, float] = (0.55, 0.52, 0.45)
) -> tuple[np.ndarray, np.ndarray]:
    """A square at y = 0 facing up."""
    corners = [(-half, -half), (half, -half), (half, half), (-half, half)]
    vertices = np.array([(x, 0.0, z, 0.0, 1.0, 0.0, *colour) for x, z in corners], np.float32)
    return vertices, np.array([0, 2, 1, 0, 3, 2], np.uint32)
