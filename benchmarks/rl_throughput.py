"""Reinforcement-learning observations: env-frames/s at 84x84 RGB, HyperGL vs moderngl.

Every variant renders the same scene (the reach task of ``hypergl_rl``: per
environment a camera, a checkered floor and four lit spheres that move every
frame) and delivers 84x84 RGB pixels of every environment to NumPy. The pixels
are checked to agree exactly between HyperGL and the moderngl baseline.

  hypergl            ``BatchRenderer(E).render(out)``: one submit; tiles stacked
                     vertically so a bottom-up read is (E, H, W, 3); RGB packed
                     four bytes per RGBA texel (read as RGBA: a memcpy, no driver
                     conversion); the sphere-less background cached while the
                     cameras stay put and only the spheres' old and new places
                     repainted each frame
  hypergl_uncached   the same with ``cache_background=False``: every pixel
                     shaded each frame (spheres ray-cast only inside their bounds)
  moderngl_batched   the user's version of the same scene: the same GLSL scene
                     functions shading every pixel of an instanced quad per
                     environment in a square tiled framebuffer, state uploaded
                     with ``buffer.write``, ``fbo.read_into(..., components=3)``
                     (the atlas is left as it is: no rearranging to (E, H, W, 3))
  moderngl_single    one environment per call (the batched code with E = 1)
  hypergl_single     ``BatchRenderer(1).render(out)``

Variants run interleaved (A B A B ...); ratios are medians of the per-round
ratios, because this machine is noisy.

    python benchmarks/rl_throughput.py [--quick] [--repeat N] [--json FILE]
"""

from __future__ import annotations

import math

import numpy as np
from _common import interleaved, median, pairwise_ratio, parser, write_json

from hypergl_rl import BatchRenderer, ReachTask
from hypergl_rl.shaders import load_record, scene_functions

SIZE = 84
COUNTS = (1, 16, 256, 1024)
OBJECTS = 4


class Motion:
    """The same deterministic motion for every variant: spheres circle their start."""

    def __init__(self, envs: int) -> None:
        self.phase = np.random.default_rng(1).uniform(0, 2 * np.pi, (envs, OBJECTS)).astype("f4")
        self.frame = 0

    def apply(self, centres: np.ndarray, start: np.ndarray) -> None:
        """Move the (E, K, >=3) `centres` (x, z) to this frame's place around `start`."""
        angle = self.phase + np.float32(0.15 * self.frame)
        centres[:, :, 0] = start[:, :, 0] + 0.25 * np.sin(angle)
        centres[:, :, 2] = start[:, :, 2] + 0.25 * np.cos(angle)
        self.frame += 1


def hypergl_variant(envs: int, frames: int, **options):
    renderer = BatchRenderer(envs, SIZE, SIZE, max_objects=OBJECTS, **options)
    task = ReachTask(envs)
    task.setup(renderer)
    task.reset(np.arange(envs), np.random.default_rng(0))
    task.write(renderer)
    start = renderer.position.copy()
    motion = Motion(envs)
    out = np.empty((envs, SIZE, SIZE, 3), np.uint8)

    def run(frames: int = frames):
        for _ in range(frames):
            motion.apply(renderer.position, start)  # straight into the mapped buffer
            renderer.render(out)

    return run, renderer, out


BASELINE_VS = """#version 430
uniform int cols;
{record}
flat out vec2 origin;
void main() {{
    load_record(gl_InstanceID);
    vec2 tile = vec2(gl_InstanceID % cols, gl_InstanceID / cols);
    origin = tile * vec2({w}.0, {h}.0);
    vec2 corner = vec2(gl_VertexID & 1, (gl_VertexID >> 1) & 1);
    gl_Position = vec4((tile + corner) * 2.0 / vec2(cols, {rows_of_tiles}) - 1.0, 0.0, 1.0);
}}
"""
BASELINE_FS_MAIN = """
out vec4 frag;
flat in vec2 origin;
void main() {
    // image row r of a tile at GL row origin.y + r: a bottom-up read is upright
    frag = vec4(shade(gl_FragCoord.xy - origin), 1.0);
}
"""


def moderngl_variant(envs: int, frames: int, state: np.ndarray):
    """The batched baseline as a moderngl user writes it (same shaders, same state)."""
    import moderngl

    ctx = moderngl.create_standalone_context(backend="egl")
    cols = math.ceil(math.sqrt(envs))
    rows_of_tiles = math.ceil(envs / cols)
    rows = state.shape[1]
    program = ctx.program(
        vertex_shader=BASELINE_VS.format(
            record=load_record(OBJECTS), w=SIZE, h=SIZE, rows_of_tiles=rows_of_tiles
        ),
        fragment_shader="#version 430\n" + scene_functions(SIZE, SIZE, OBJECTS) + BASELINE_FS_MAIN,
    )
    program["cols"] = cols
    ssbo = ctx.buffer(state.tobytes())
    vao = ctx.vertex_array(program, [])
    fbo = ctx.simple_framebuffer((cols * SIZE, rows_of_tiles * SIZE))
    atlas = np.empty((rows_of_tiles * SIZE, cols * SIZE, 3), np.uint8)
    local = state.copy()
    centres = local.reshape(envs, rows, 4)[:, 5::2]
    start = centres.copy()
    motion = Motion(envs)

    def run(frames: int = frames):
        ctx.__enter__()
        for _ in range(frames):
            motion.apply(centres, start)
            ssbo.write(local)
            fbo.use()
            ssbo.bind_to_storage_buffer(0)
            vao.render(moderngl.TRIANGLE_STRIP, vertices=4, instances=envs)
            fbo.read_into(atlas, components=3)

    def tiles() -> np.ndarray:
        """The atlas rearranged to (E, H, W, 3), for the image check only."""
        grid = atlas.reshape(rows_of_tiles, SIZE, cols, SIZE, 3).transpose(0, 2, 1, 3, 4)
        return grid.reshape(-1, SIZE, SIZE, 3)[:envs]

    return run, tiles, ctx


def single_moderngl(frames: int, state: np.ndarray):
    run, tiles, ctx = moderngl_variant(1, frames, state)
    return run, tiles, ctx


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeat=9)
    p.add_argument("--quick", action="store_true", help="3 rounds, fewer frames per call")
    args = p.parse_args()
    repeat = 3 if args.quick else args.repeat
    budget = 1024 if args.quick else 4096  # env-frames per timed call

    results: dict = {"hypergl": {}, "moderngl_batched": {}, "hypergl_uncached": {}}
    ratios: dict[int, float] = {}
    print(f"{SIZE}x{SIZE} RGB, reach scene ({OBJECTS} spheres + floor), medians of {repeat} rounds")
    for envs in COUNTS:
        frames = max(1, budget // envs)
        run_ours, renderer, ours = hypergl_variant(envs, frames)
        state = np.array(renderer.state)  # the same scene for the baseline
        run_theirs, tiles, mgl = moderngl_variant(envs, frames, state)
        run_ours(1)  # same state, same update: the same pixels (a check, not a timing)
        run_theirs(1)
        agree = float((ours == tiles()).all(axis=-1).mean())
        run_full, full, _ = hypergl_variant(envs, frames, cache_background=False)
        samples = interleaved(
            {"hypergl": run_ours, "moderngl": run_theirs, "full": run_full}, repeat
        )
        full.close()
        fps = {k: envs * frames / median(v) for k, v in samples.items()}
        results["hypergl"][envs] = fps["hypergl"]
        results["moderngl_batched"][envs] = fps["moderngl"]
        results["hypergl_uncached"][envs] = fps["full"]
        ratios[envs] = pairwise_ratio(samples["moderngl"], samples["hypergl"])
        print(f"  E={envs:<5} hypergl {fps['hypergl']:>9,.0f}   moderngl batched "
              f"{fps['moderngl']:>9,.0f} env-frames/s   ratio {ratios[envs]:.2f}x   "
              f"(uncached {fps['full']:>7,.0f})   stacks {len(renderer.stacks)}   "
              f"pixels agree {agree:.2%}")  # fmt: skip
        renderer.close()
        mgl.release()

    frames = 256 if args.quick else 1024
    run_ours, renderer, _ = hypergl_variant(1, frames)
    state = np.array(renderer.state)
    run_theirs, _, mgl = single_moderngl(frames, state)
    samples = interleaved({"hypergl": run_ours, "moderngl": run_theirs}, repeat)
    results["hypergl_single"] = frames / median(samples["hypergl"])
    results["moderngl_single"] = frames / median(samples["moderngl"])
    results["vs_moderngl_single"] = pairwise_ratio(samples["moderngl"], samples["hypergl"])
    results["vs_moderngl_256"] = ratios[256]
    results["vs_moderngl"] = ratios
    renderer.close()
    mgl.release()
    print(f"  single env: hypergl {results['hypergl_single']:,.0f} frames/s, moderngl "
          f"{results['moderngl_single']:,.0f} frames/s, ratio "
          f"{results['vs_moderngl_single']:.2f}x   (target >= 1.1x)")  # fmt: skip
    print(f"hypergl vs moderngl batched at E=256: {ratios[256]:.2f}x   (target >= 1.5x)")
    print(f"hypergl at E=16: {results['hypergl'][16]:,.0f} env-frames/s   (target >= 12,000)")
    write_json(args.json, results)


if __name__ == "__main__":
    main()
