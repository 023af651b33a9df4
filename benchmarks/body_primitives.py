"""Ray-cast against tessellated primitives in the body renderer, on a MuJoCo-like batch.

``--worlds`` views of ``--tile`` pixels (84) tiled into one framebuffer, one world per view
(``BodyRenderer(views=N, outputs=("color", "depth", "id"))``, every view its own camera and
record rows), two scenes: ``cheetah`` (10 capsules, a sphere and a ground plane: 12 geoms)
``mixed`` (14 capsules, 2 spheres, 2 ellipsoids, a cylinder and the plane: 20 geoms) and
``no_ground`` (the cheetah's 11 geoms without the plane).
Variants, interleaved frame by frame (medians of per-round times and ratios):

* ``mesh``: spheres and capsules tessellated at the default detail (12 x 16), LOD on;
* ``coarse``: tessellated at (4, 6) (the LOD's coarse meshes as the only detail);
* ``raycast``: ``primitives="raycast"``: two triangles over each sphere's, ellipsoid's,
  capsule's and cylinder's screen rectangle, intersected per fragment; the plane is its own
  quad clipped by the rasterizer (flat: its interpolated depth is exact), lit once.

A frame is the recorded program (expansion, clear, multi-draw) submitted and finished;
the read of the three outputs is timed apart (``read_ms``: the same in every variant).
``triangles`` is what the multi-draw hands the rasterizer per frame (before back-face
culling), from the instance counts the expansion wrote.

    python benchmarks/body_primitives.py [--worlds 64] [--tile 84] [--repeat 7] [--json FILE]

Goal (issue 25, item 6): 256 cheetah worlds at 84 x 84 in about 30 ms (10x MuJoCo's
tuned renderer, about 860 frames/s). Where the time goes is printed below the table.

Measured 2026-12-01 on this 2-core machine under a load of 5 from other jobs, 256 worlds,
5 rounds (medians; unloaded figures are lower): cheetah ``raycast`` 62 ms (4,100 worlds/s)
against ``mesh`` 1,940 ms and ``coarse`` 1,790 ms. Then the views' clipping moved from a
per-fragment discard to the rasterizer (``gl_ClipDistance``): before and after, one run each,
load about 3: cheetah ``mesh`` 1,294 -> 124 ms, ``coarse`` 1,171 -> 42 ms, ``raycast``
35 -> 36 ms (unchanged: its proxies stayed inside their views); ``mixed`` 1,435 -> 259,
1,373 -> 65, 41 -> 47; ``no_ground`` 151 -> 113, 35 -> 27, 25 -> 21. The ids agree with the
12 x 16 meshes on 99.9% of the pixels (the rest on edges). Where it goes, raycast cheetah:
the clear 3 ms, the expansion 1.5 ms, the draws the rest: the ground's fragments (the plane
covers most of every view: about 1.1 M fragments at 256 views) about 15 ms, the 2,816 other
geoms (2 triangles each, a few hundred fragments) the other 16. The plane then moved
from a ray-cast quad over its view to its own rasterizer-clipped quad, lit once (no ray,
discard or ``gl_FragDepth`` per fragment, early depth testing on): 256 HalfCheetah worlds
RGB in ``hypergl_mujoco`` 23.5 -> 20.5 ms interleaved, pixel-identical; the ground now
costs what a constant-colour shader on the same pixels costs (llvmpipe's fill, about 4 ms
for 0.8 M pixels). Reading the three outputs back costs about 6 ms more.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import median, pairwise_ratio, parser, write_json

import hypergl
from hypergl import CommandBuffer
from hypergl.bodies import MODE_CAPSULE, BodyRenderer, InstanceRecords, Part
from hypergl.transforms import look_at, perspective

VARIANTS = {"mesh": {"sphere_detail": (12, 16)}, "coarse": {"sphere_detail": (4, 6)},
            "raycast": {"primitives": "raycast"}}  # fmt: skip
# scene -> geom kinds, the ground last
SCENES = {"cheetah": ["capsule"] * 10 + ["sphere", "ground"],
          "mixed": ["capsule"] * 14 + ["sphere"] * 2 + ["ellipsoid"] * 2 + ["cylinder",
                                                                          "ground"],
          "no_ground": ["capsule"] * 10 + ["sphere"]}  # fmt: skip


def random_quaternions(rng, count):
    q = rng.standard_normal((count, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def geom_parts(kind, rng):
    """The part of one geom of `kind`: sizes of a cheetah's limbs (metres)."""
    if kind == "capsule":
        r, h = rng.uniform(0.04, 0.07), rng.uniform(0.1, 0.25)
        return Part("capsule", scale=(r, h, r), mode=MODE_CAPSULE)
    if kind == "sphere":
        r = rng.uniform(0.06, 0.1)
        return Part("sphere", scale=(r, r, r))
    if kind == "ellipsoid":
        return Part("sphere", scale=tuple(rng.uniform(0.05, 0.12, 3)))
    if kind == "cylinder":
        r = rng.uniform(0.04, 0.07)
        return Part("cylinder", scale=(r, rng.uniform(0.1, 0.2), r))
    return Part("quad", scale=(20.0, 1.0, 20.0))  # MuJoCo's ground plane


class Batch:
    """One variant's renderer over `worlds` worlds of `kinds`, recorded once."""

    def __init__(self, ctx, kinds, worlds, tile, options, seed=0):
        rng = np.random.default_rng(seed)
        geoms = len(kinds)
        self.records = InstanceRecords(ctx, worlds * geoms)
        # Every world the same model (geom g has id g) in its own pose about (0, 0.6, 0).
        positions = np.zeros((worlds, geoms, 3), np.float32)
        positions[:, :, 0] = rng.uniform(-0.6, 0.6, (worlds, geoms))
        positions[:, :, 1] = rng.uniform(0.3, 0.8, (worlds, geoms))
        positions[:, :, 2] = rng.uniform(-0.15, 0.15, (worlds, geoms))
        positions[:, -1] = 0.0  # the ground
        rotations = random_quaternions(rng, worlds * geoms).reshape(worlds, geoms, 4)
        rotations[:, -1] = (0.0, 0.0, 0.0, 1.0)
        ids = np.tile(np.arange(geoms), worlds)
        self.records.write(positions.reshape(-1, 3), rotations.reshape(-1, 4), ids)
        self.renderer = BodyRenderer(self.records, max_ids=geoms, views=worlds,
                                     outputs=("color", "depth", "id"), **options)  # fmt: skip
        for g, kind in enumerate(kinds):
            self.renderer.set_parts(g, [geom_parts(kind, rng)])
        cameras = []
        for _ in range(worlds):  # a tracking camera, a little different per world
            eye = (rng.uniform(-0.3, 0.3), rng.uniform(0.9, 1.2), rng.uniform(2.2, 2.6))
            cameras.append(perspective(45.0, 1.0, 0.05, 50.0) @ look_at(eye, (0, 0.5, 0)))
        ranges = [(w * geoms, geoms) for w in range(worlds)]
        self.renderer.set_views(cameras, (tile, tile), ranges=ranges)
        self.framebuffer = self.renderer.framebuffer()
        self.cmd = ctx.command_buffer()
        self.cmd.bind_framebuffer(self.framebuffer)
        self.renderer.record_clear(self.cmd)
        self.renderer.record(self.cmd)
        self.cmd.end()
        self.ctx = ctx

    def frame(self) -> None:
        self.cmd.submit()
        self.ctx.finish()

    def stages(self) -> dict[str, CommandBuffer]:
        """Programs of the frame's first stages alone: the clear, the clear and the
        background pass of the extra outputs, the expansion (where the time goes)."""
        renderer, programs = self.renderer, {}
        for name in ("clear", "clear_background", "expand"):
            cmd = self.ctx.command_buffer()
            cmd.bind_framebuffer(self.framebuffer)
            if name == "clear":
                cmd.clear(color=(0.0, 0.0, 0.0, 1.0), depth=1.0)
            elif name == "clear_background":
                renderer.record_clear(cmd)
            else:
                cmd.copy_buffer(renderer.template, renderer.indirect, renderer.template.size)
                renderer._record_expand(cmd, phase=0)
            cmd.end()
            programs[name] = cmd
        return programs

    def triangles(self) -> int:
        counts = self.renderer.instance_counts()
        template = self.renderer._template  # (count of indices, ...) per mesh
        index = self.renderer._mesh_index
        return int(sum(counts[key] * template[index[key], 0] // 3 for key in counts))

    def release(self) -> None:
        for resource in (self.framebuffer, self.renderer, self.records):
            resource.release()


def measure(ctx, kinds, worlds, tile, repeat):
    batches = {name: Batch(ctx, kinds, worlds, tile, options) for name, options in VARIANTS.items()}
    programs = batches["raycast"].stages()
    samples: dict[str, list[float]] = {name: [] for name in batches}
    stages: dict[str, list[float]] = {name: [] for name in programs}
    steps = [(samples[name], batch.frame) for name, batch in batches.items()]
    steps += [(stages[name], cmd.submit) for name, cmd in programs.items()]
    for _, step in steps:
        step()  # warm up
    ctx.finish()
    for _ in range(repeat):  # each round every variant's frame, then each stage alone
        for times, step in steps:
            start = time.perf_counter()
            step()
            ctx.finish()
            times.append(time.perf_counter() - start)
    read = []
    for _ in range(max(3, repeat // 2)):
        batch = batches["raycast"]
        start = time.perf_counter()
        batch.renderer.read(batch.framebuffer)
        read.append(time.perf_counter() - start)
    # Agreement of the ids: raycast against the default meshes (edges differ by a pixel).
    for name in ("mesh", "raycast"):
        batches[name].frame()  # the stages above cleared the framebuffer
    ids = {name: batches[name].renderer.read(batches[name].framebuffer)["id"]
           for name in ("mesh", "raycast")}  # fmt: skip
    row = {name: median(times) * 1e3 for name, times in samples.items()}
    result = {
        "geoms": len(kinds),
        "ms": row,
        "triangles": {name: batch.triangles() for name, batch in batches.items()},
        "read_ms": median(read) * 1e3,
        "raycast_stages_ms": {name: median(times) * 1e3 for name, times in stages.items()},
        "raycast_vs_mesh": pairwise_ratio(samples["mesh"], samples["raycast"]),
        "raycast_vs_coarse": pairwise_ratio(samples["coarse"], samples["raycast"]),
        "coarse_vs_mesh": pairwise_ratio(samples["mesh"], samples["coarse"]),
        "ids_agree": float((ids["mesh"] == ids["raycast"]).mean()),
        "worlds_per_s": {name: worlds / (ms / 1e3) for name, ms in row.items()},
    }
    for batch in batches.values():
        batch.release()
    return result


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeat=7)
    p.add_argument("--worlds", type=int, default=64, help="views, one world each (%(default)s)")
    p.add_argument("--tile", type=int, default=84, help="pixels a side per view (%(default)s)")
    args = p.parse_args()
    ctx = hypergl.context()
    results = {"worlds": args.worlds, "tile": args.tile, "repeat": args.repeat, "scenes": {}}
    for scene, kinds in SCENES.items():
        print(f"{scene}: {args.worlds} worlds x {len(kinds)} geoms ...", flush=True)
        results["scenes"][scene] = measure(ctx, kinds, args.worlds, args.tile, args.repeat)
    print(f"\nbody primitives, {args.worlds} views of {args.tile}x{args.tile}, median ms a frame "
          f"(submit + finish; {args.repeat} rounds, interleaved)")  # fmt: skip
    print(f"{'scene':<9}{'variant':<9}{'ms':>8}{'triangles':>11}{'worlds/s':>10}")
    for scene, result in results["scenes"].items():
        for name, ms in result["ms"].items():
            print(f"{scene:<9}{name:<9}{ms:>8.2f}{result['triangles'][name]:>11}"
                  f"{result['worlds_per_s'][name]:>10.0f}")  # fmt: skip
        print(f"{'':<9}raycast vs mesh {result['raycast_vs_mesh']:.2f}x, vs coarse "
              f"{result['raycast_vs_coarse']:.2f}x; coarse vs mesh {result['coarse_vs_mesh']:.2f}x;"
              f" read of the 3 outputs {result['read_ms']:.2f} ms; ids agree "
              f"{result['ids_agree']:.2%}")  # fmt: skip
        stage = result["raycast_stages_ms"]
        draw = result["ms"]["raycast"] - stage["clear_background"] - stage["expand"]
        print(f"{'':<9}raycast's frame: clear {stage['clear']:.2f} ms, + background pass "
              f"{stage['clear_background'] - stage['clear']:.2f}, expansion "
              f"{stage['expand']:.2f}, draws (the rest) {draw:.2f}")  # fmt: skip
    write_json(args.json, results)


if __name__ == "__main__":
    main()
