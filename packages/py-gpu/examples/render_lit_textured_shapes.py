"""Lit, textured 3D shapes through py_gpu's MeshRenderer (smooth normals, a texture atlas,
per-pixel lighting), orbiting camera, as PNG and MP4.

    python examples/render_lit_textured_shapes.py [--backend auto] [--image-only]
"""

from __future__ import annotations

import argparse
from math import cos, sin
from pathlib import Path

import numpy as np
from _media import write_mp4, write_png

from py_gpu import available_backends
from py_gpu.mesh import (
    Camera,
    DirectionalLight,
    Instances,
    Material,
    MeshBatch,
    MeshRenderer,
    TextureAtlas,
)

OUT = Path("renderings-tests")


def uv_sphere(segments: int = 42, rings: int = 22) -> MeshBatch:
    """A unit sphere: positions are its normals, UVs wrap once around and pole to pole."""
    phi = np.pi * np.arange(rings + 1) / rings
    theta = 2 * np.pi * np.arange(segments + 1) / segments
    p, t = np.meshgrid(phi, theta, indexing="ij")
    normals = np.stack([np.sin(p) * np.cos(t), np.cos(p), np.sin(p) * np.sin(t)], -1).reshape(-1, 3)
    uvs = np.stack([t / (2 * np.pi), p / np.pi], -1).reshape(-1, 2)
    a = (np.arange(rings)[:, None] * (segments + 1) + np.arange(segments)[None]).reshape(-1)
    b = a + segments + 1
    indices = np.concatenate([np.stack([a, b, a + 1], 1), np.stack([a + 1, b, b + 1], 1)])
    return MeshBatch(normals, indices, normals, uvs, material_ids=np.zeros(len(indices), np.int64))


def checker_texture(size: int = 96) -> np.ndarray:
    y, x = np.mgrid[0:size, 0:size]
    stripe = 0.5 + 0.5 * np.sin((x + y) * 0.18)
    cell = ((x // 8) + (y // 8)) % 2 == 1
    image = np.where(
        cell[..., None],
        np.stack([46 + 0 * x, 130 + stripe * 70, 218 + 0 * x], -1),
        np.stack([238 + 0 * x, 238 - stripe * 70, 74 + 0 * x], -1),
    )
    return image.astype(np.uint8)


def transform(offset, scale=1.0, yaw=0.0):
    c, s = cos(yaw), sin(yaw)
    m = np.eye(4)
    m[:3, :3] = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]) * scale
    m[:3, 3] = offset
    return m


class Shapes:
    def __init__(self, backend: str) -> None:
        materials = (
            Material((255, 255, 255), texture=0),
            Material((220, 224, 235)),
            Material((87, 71, 51)),
        )
        self.renderer = MeshRenderer(
            backend,
            materials=materials,
            atlas=TextureAtlas([checker_texture()]),
            texture_filter="bilinear",
        )
        cube = MeshBatch.cube(1.0)
        cube = MeshBatch(
            cube.positions,
            cube.indices,
            cube.normals,
            cube.uvs,
            material_ids=np.ones(cube.triangle_count, np.int64),
        )
        floor = MeshBatch(
            np.array(
                [(-3, -0.32, -2.2), (3, -0.32, -2.2), (3, -0.32, 2.2), (-3, -0.32, 2.2)], float
            ),
            np.array([(0, 2, 1), (0, 3, 2)]),
            np.tile((0.0, 1.0, 0.0), (4, 1)),
            material_ids=np.full(2, 2, np.int64),
        )
        self.sphere = self.renderer.upload(uv_sphere(), object_id=0)
        self.cube = self.renderer.upload(cube, object_id=1)
        self.floor = self.renderer.upload(floor, object_id=2)
        self.lights = (
            DirectionalLight((0.5, -1.0, -0.6), (1.0, 0.9, 0.72), 0.9),
            DirectionalLight((-0.7, -0.4, -0.3), (0.42, 0.65, 1.0), 0.45),
        )

    def frame(self, t: float, width: int, height: int):
        camera = Camera(
            position=(3.1 * sin(t * 0.45), 1.55, 4.2 * cos(t * 0.45)),
            target=(0.0, 0.2, 0.0),
            fov_y=46.0,
        )
        items = [
            (self.sphere, Instances(transform((-0.65, 0.35, 0.0), 0.62, 1.15 * t))),
            (self.cube, Instances(transform((0.9, 0.35, -0.05), 0.62, -0.85 * t))),
            self.floor,
        ]
        result = self.renderer.render(
            items, camera, width, height, lights=self.lights, ambient=0.12, background=(5, 6, 10)
        )
        return result.color


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="auto", choices=["auto", *available_backends()])
    parser.add_argument("--output", type=Path, default=OUT / "gpu_lit_textured_shapes.png")
    parser.add_argument("--video", type=Path, default=OUT / "gpu_lit_textured_shapes.mp4")
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=360)
    parser.add_argument("--frames", type=int, default=96)
    parser.add_argument("--fps", type=int, default=24)
    parser.add_argument("--image-only", action="store_true")
    args = parser.parse_args(argv)
    shapes = Shapes(args.backend)
    print(f"wrote {write_png(args.output, shapes.frame(0.35, args.width, args.height))}")
    if not args.image_only:
        frames = (shapes.frame(i / args.fps, args.width, args.height) for i in range(args.frames))
        print(f"wrote {write_mp4(args.video, frames, args.width, args.height, args.fps)}")


if __name__ == "__main__":
    main()
