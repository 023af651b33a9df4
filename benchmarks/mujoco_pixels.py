"""MuJoCo pixels: 256 worlds at 84x84 RGB, hypergl_mujoco against mujoco.Renderer, and pixel
env-steps per second end to end against gymnasium's own rendering.

All variants run interleaved in one run (A B C ... A B C ...); figures are medians and
ratios medians of per-round ratios (this machine is noisy). Per model, a cheetah-class one
(gymnasium's half_cheetah.xml) and a humanoid-class one (humanoid.xml), each world in its
own state, seen by the model's "track" camera:

  ours            ``BatchRenderer(model, 256, ["track"], 84, 84, ("rgb",)).render(datas)``:
                  every world in one submit, MuJoCo's default picture
  ours_single     the same with ``samples=0``: what multisampling (the model's offsamples,
                  4) costs a frame
  ours_tuned      the same with ``scene_flags`` shadows, reflection and skybox off and
                  ``samples=0``: against mujoco_tuned (tuned the same way)
  mujoco_default  ``mujoco.Renderer(model, 84, 84)`` looped over the worlds:
                  ``update_scene(data, "track"); render()`` with its default options
  mujoco_tuned    the same with shadows, reflection and skybox off (scene flags
                  mjRND_SHADOW, mjRND_REFLECTION, mjRND_SKYBOX; vis.quality.shadowsize 0)
                  and MSAA off (vis.quality.offsamples 0)
  (--full: also mujoco_effects_off, the tuned one with MSAA on: the issue's middle column)
  moderngl        what a competent user writes alone (benchmarks/mujoco_moderngl.py): one
                  instanced draw per geom type, all worlds' poses in one array write, tiled
                  views; its picture is MuJoCo's without textures, shadows, reflection and
                  skybox, against ``ours_plain`` (the same flags, ``texture=False``, ``samples=0``)

The MuJoCo loops are timed over the first few worlds by default (their cost per frame does
not depend on how many; ``--full`` loops over all 256). Then the pose sync of 256 humanoid
worlds, interleaved in rounds of its own (benchmarks/mujoco_sync.py's variants: one C++
attribute source against a per-geom Python loop), and end to end on HalfCheetah-v5:
``VectorPixelObservations`` over
``gym.make_vec(..., vectorization_mode="sync")`` stepping ``--envs`` sub-environments
against one ``gym.make(..., render_mode="rgb_array")`` env stepped and rendered per step.

``--cpu``: time the process's CPU seconds (every thread's: llvmpipe's, ours and
mujoco.Renderer's alike) rather than the wall clock, on a machine others load; the
ratios are then of work, not of frames/s (ours spreads a frame over llvmpipe's threads).

    python benchmarks/mujoco_pixels.py [--full] [--repeat N] [--cpu] [--json FILE]
"""

from __future__ import annotations

import copy
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("MUJOCO_GL", "egl")  # mujoco.Renderer headless; read at mujoco's import

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import interleaved, median, pairwise_ratio, parser, write_json
from mujoco_moderngl import InstancedRenderer
from mujoco_sync import sync_variants

SIZE = 84
WORLDS = 256
MODELS = {"cheetah": "half_cheetah", "humanoid": "humanoid"}
TARGETS = {"vs_default_cheetah": 100.0, "vs_default_humanoid": 100.0, "vs_tuned_cheetah": 10.0,
           "vs_tuned_humanoid": 10.0, "sync_vs_python": 50.0}  # fmt: skip
# "with shadows and reflections off", ours and MuJoCo's alike
TUNED_FLAGS = {"mjRND_SHADOW": False, "mjRND_REFLECTION": False, "mjRND_SKYBOX": False}


def load_model(name: str):
    import gymnasium
    import mujoco

    path = Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets" / f"{name}.xml"
    return mujoco.MjModel.from_xml_path(str(path))


def worlds(model, count: int) -> list:
    """`count` worlds of `model`, each a few random steps from its own perturbed start."""
    import mujoco

    rng = np.random.default_rng(0)
    out = []
    for _ in range(count):
        data = mujoco.MjData(model)
        data.qpos[:] += rng.normal(0.0, 0.05, model.nq)
        data.qvel[:] = rng.normal(0.0, 0.5, model.nv)
        for _ in range(5):
            mujoco.mj_step(model, data)
        out.append(data)
    return out


def without(model, kind: str = "planes"):
    """A copy of `model` whose planes (the ground; `kind` "shapes": every other geom) are
    not drawn (alpha 0, which MuJoCo does not draw either): what they cost us."""
    import mujoco

    model = copy.copy(model)
    planes = model.geom_type == mujoco.mjtGeom.mjGEOM_PLANE
    model.geom_rgba[planes if kind == "planes" else ~planes, 3] = 0.0
    return model


def mujoco_renderer(model, *, effects: bool, msaa: bool):
    """mujoco.Renderer at SIZE x SIZE; effects: shadows, reflection and skybox."""
    import mujoco

    model = copy.copy(model)  # the options below are the model's: not the caller's model
    if not msaa:
        model.vis.quality.offsamples = 0  # read when the renderer makes its buffers
    if not effects:
        model.vis.quality.shadowsize = 0
    renderer = mujoco.Renderer(model, SIZE, SIZE)
    for flag in ("mjRND_SHADOW", "mjRND_REFLECTION", "mjRND_SKYBOX"):
        renderer.scene.flags[getattr(mujoco.mjtRndFlag, flag)] = effects
    return renderer


def mujoco_loop(renderer, datas: list):
    def run() -> None:
        for data in datas:
            renderer.update_scene(data, "track")
            renderer.render()

    return run


def scene_share(renderer, data, frames: int) -> float:
    """Share of mujoco.Renderer's frame spent in update_scene (the rest: GL render + read)."""
    start = time.perf_counter()
    for _ in range(frames):
        renderer.update_scene(data, "track")
    scene = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(frames):
        renderer.update_scene(data, "track")
        renderer.render()
    return scene / (time.perf_counter() - start)


def vector_env(count: int):
    import gymnasium as gym

    from hypergl_mujoco import VectorPixelObservations

    envs = gym.make_vec("HalfCheetah-v5", count, vectorization_mode="sync")
    envs = VectorPixelObservations(envs, width=SIZE, height=SIZE, camera="track")
    envs.reset(seed=0)
    envs.action_space.seed(0)
    return envs


def gymnasium_env():
    import gymnasium as gym

    env = gym.make("HalfCheetah-v5", render_mode="rgb_array", width=SIZE, height=SIZE,
                   camera_name="track")  # fmt: skip
    env.reset(seed=0)
    env.action_space.seed(0)
    return env


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeat=5)
    p.add_argument("--full", action="store_true",
                   help="loop MuJoCo's renderer over all worlds, add the MSAA-on column, "
                        "256 sub-environments end to end")  # fmt: skip
    p.add_argument("--envs", type=int, help="sub-environments end to end (default 64; "
                                            "--full 256)")  # fmt: skip
    p.add_argument("--cpu", action="store_true",
                   help="time the process's CPU seconds, not the wall clock")  # fmt: skip
    args = p.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    from hypergl_mujoco import BatchRenderer

    started = time.perf_counter()
    default_frames, tuned_frames = (WORLDS, WORLDS) if args.full else (2, 16)
    env_count = args.envs or (WORLDS if args.full else 64)
    variants: dict = {}
    frames: dict[str, int] = {}  # frames (or env-steps) one call of a variant delivers
    closers = []
    split: dict[str, float] = {}
    for key, name in MODELS.items():
        model = load_model(name)
        datas = worlds(model, WORLDS)
        ours = BatchRenderer(model, WORLDS, ["track"], SIZE, SIZE, ("rgb",))
        one = BatchRenderer(model, 1, ["track"], SIZE, SIZE, ("rgb",))
        floorless = BatchRenderer(without(model), WORLDS, ["track"], SIZE, SIZE, ("rgb",))
        # MSAA off too, as in mujoco_tuned; ours_single: the default picture without it
        tuned = BatchRenderer(model, WORLDS, ["track"], SIZE, SIZE, ("rgb",),
                              scene_flags=TUNED_FLAGS, samples=0)  # fmt: skip
        single = BatchRenderer(model, WORLDS, ["track"], SIZE, SIZE, ("rgb",), samples=0)
        variants[f"ours_single_{key}"] = lambda r=single, d=datas: r.render(d)
        variants[f"ours_{key}"] = lambda r=ours, d=datas: r.render(d)
        variants[f"ours_one_{key}"] = lambda r=one, d=datas[0]: r.render(d)
        variants[f"ours_floorless_{key}"] = lambda r=floorless, d=datas: r.render(d)
        variants[f"ours_tuned_{key}"] = lambda r=tuned, d=datas: r.render(d)
        # the instanced-moderngl baseline and ours at its picture (no textures either)
        plain = BatchRenderer(model, WORLDS, ["track"], SIZE, SIZE, ("rgb",),
                              scene_flags=TUNED_FLAGS, texture=False, samples=0)  # fmt: skip
        baseline = InstancedRenderer(model, WORLDS, "track", SIZE, SIZE)
        variants[f"ours_plain_{key}"] = lambda r=plain, d=datas: r.render(d)
        variants[f"moderngl_{key}"] = lambda r=baseline, d=datas: r.render(d)
        frames[f"ours_{key}"], frames[f"ours_one_{key}"] = WORLDS, 1
        for name in ("ours_floorless", "ours_tuned", "ours_plain", "moderngl", "ours_single"):
            frames[f"{name}_{key}"] = WORLDS
        closers += [plain.close, baseline.release]
        columns = [("default", True, True, default_frames), ("tuned", False, False, tuned_frames)]
        if args.full:
            columns.append(("effects_off", False, True, tuned_frames))
        for label, effects, msaa, count in columns:
            renderer = mujoco_renderer(model, effects=effects, msaa=msaa)
            variants[f"mujoco_{label}_{key}"] = mujoco_loop(renderer, datas[:count])
            frames[f"mujoco_{label}_{key}"] = count
            split[f"mujoco_{label}_{key}_scene_share"] = scene_share(renderer, datas[0], 2)
            closers.append(renderer.close)
        closers += [ours.close, one.close, floorless.close, tuned.close, single.close]

    sync, rows, _, close_sync = sync_variants(WORLDS)
    # its own rounds (source, Python, source, ...): in a training loop the sync follows
    # mj_step, which has just touched the same MjData, not another renderer's frame
    syncs = {"sync_source": sync["source"], "sync_python": sync["per_geom_python"]}
    frames["sync_source"] = frames["sync_python"] = rows
    closers.append(close_sync)

    envs = vector_env(env_count)
    gym_env = gymnasium_env()
    batch = envs.action_space.sample()

    def ours_env() -> None:
        envs.step(batch)

    def gym_loop(steps: int = 2) -> None:
        for _ in range(steps):
            gym_env.step(gym_env.action_space.sample())
            gym_env.render()

    variants.update(env_ours=ours_env, env_physics=lambda: envs.env.step(batch),
                    env_render=lambda: envs.renderer.render(envs.datas),
                    env_gymnasium=gym_loop)  # fmt: skip
    frames.update(env_ours=env_count, env_physics=env_count, env_render=env_count,
                  env_gymnasium=2)  # fmt: skip
    closers += [envs.close, gym_env.close]
    setup = time.perf_counter() - started

    samples = interleaved(variants, args.repeat, clock)
    samples.update(interleaved(syncs, args.repeat, clock))
    per_frame = {name: [t / frames[name] for t in times] for name, times in samples.items()}
    rate = {name: 1.0 / median(times) for name, times in per_frame.items()}
    results: dict = {"worlds": WORLDS, "size": SIZE, "repeat": args.repeat, "full": args.full,
                     "envs": env_count, "setup_s": setup, "cpu": args.cpu}  # fmt: skip
    for key in MODELS:
        results[f"ours_fps_{key}"] = rate[f"ours_{key}"]
        results[f"ours_one_world_fps_{key}"] = rate[f"ours_one_{key}"]
        results[f"ours_without_planes_fps_{key}"] = rate[f"ours_floorless_{key}"]
        # the model's offsamples (4) against none: what multisampling costs a frame
        results[f"ours_single_sampled_fps_{key}"] = rate[f"ours_single_{key}"]
        results[f"msaa_cost_{key}"] = pairwise_ratio(per_frame[f"ours_{key}"],
                                                     per_frame[f"ours_single_{key}"])  # fmt: skip
        for label in ("default", "tuned", "effects_off"):
            name = f"mujoco_{label}_{key}"
            if name in rate:
                results[f"mujoco_{label}_fps_{key}"] = rate[name]
                results[f"{name}_scene_share"] = split[f"{name}_scene_share"]
        results[f"vs_default_{key}"] = pairwise_ratio(per_frame[f"mujoco_default_{key}"],
                                                      per_frame[f"ours_{key}"])  # fmt: skip
        results[f"ours_tuned_fps_{key}"] = rate[f"ours_tuned_{key}"]
        # tuned the same way: shadows, reflection and skybox off in both
        results[f"vs_tuned_{key}"] = pairwise_ratio(per_frame[f"mujoco_tuned_{key}"],
                                                    per_frame[f"ours_tuned_{key}"])  # fmt: skip
        results[f"ours_plain_fps_{key}"] = rate[f"ours_plain_{key}"]
        results[f"moderngl_fps_{key}"] = rate[f"moderngl_{key}"]
        results[f"vs_moderngl_{key}"] = pairwise_ratio(per_frame[f"moderngl_{key}"],
                                                       per_frame[f"ours_plain_{key}"])  # fmt: skip
        results[f"default_vs_tuned_{key}"] = pairwise_ratio(per_frame[f"mujoco_tuned_{key}"],
                                                            per_frame[f"ours_{key}"])  # fmt: skip
    results["sync_rows_per_s"] = rate["sync_source"]
    results["python_rows_per_s"] = rate["sync_python"]
    results["sync_vs_python"] = pairwise_ratio(per_frame["sync_python"], per_frame["sync_source"])
    results["env_steps_per_s_ours"] = rate["env_ours"]
    results["env_steps_per_s_gymnasium"] = rate["env_gymnasium"]
    results["env_steps_vs_gymnasium"] = pairwise_ratio(per_frame["env_gymnasium"],
                                                       per_frame["env_ours"])  # fmt: skip
    for part in ("ours", "physics", "render"):  # a whole step; its two halves alone
        results[f"env_{part}_ms"] = median(samples[f"env_{part}"]) * 1e3
    report(results, args.repeat)
    write_json(args.json, results)
    for close in reversed(closers):
        close()


def report(r: dict, repeat: int) -> None:
    print(f"MuJoCo pixels, {r['worlds']} worlds at {r['size']}x{r['size']} RGB, 'track' camera; "
          f"{repeat} interleaved rounds, medians (setup {r['setup_s']:.0f} s)"
          + (": process CPU time, frames per CPU second" if r["cpu"] else ""))  # fmt: skip
    for key in MODELS:
        print(f"{key} ({MODELS[key]}.xml), frames/s:")
        print(f"  {'hypergl_mujoco, one submit':<54}{r[f'ours_fps_{key}']:>9,.0f}")
        print(f"  {'hypergl_mujoco, single-sampled (samples=0)':<54}"
              f"{r[f'ours_single_sampled_fps_{key}']:>9,.0f}   (multisampled frame "
              f"{r[f'msaa_cost_{key}']:.2f}x its time)")  # fmt: skip
        print(f"  {'hypergl_mujoco tuned: shadows, skybox, MSAA off':<54}"
              f"{r[f'ours_tuned_fps_{key}']:>9,.0f}")  # fmt: skip
        for label, what in (("default", "default options"),
                            ("effects_off", "shadows, reflection, skybox off"),
                            ("tuned", "tuned: those and MSAA off")):  # fmt: skip
            if f"mujoco_{label}_fps_{key}" in r:
                share = r[f"mujoco_{label}_{key}_scene_share"]
                print(f"  {'mujoco.Renderer, ' + what:<54}{r[f'mujoco_{label}_fps_{key}']:>9,.0f}"
                      f"   (update_scene {share:.1%} of a frame, the rest GL)")  # fmt: skip
        for which, what in (("default", "default vs default"), ("tuned", "tuned vs tuned"),
                            ("default_vs_tuned", "our default vs their tuned")):  # fmt: skip
            name = f"vs_{which}_{key}" if which != "default_vs_tuned" else f"{which}_{key}"
            target = f"   (target >= {TARGETS[name]:g}x)" if name in TARGETS else ""
            print(f"  {'ours vs mujoco.Renderer, ' + what:<54}{r[name]:>8.1f}x{target}")
        print(f"  {'instanced moderngl (no textures, shadows, skybox)':<54}"
              f"{r[f'moderngl_fps_{key}']:>9,.0f}")  # fmt: skip
        print(f"  {'hypergl_mujoco at that picture':<54}{r[f'ours_plain_fps_{key}']:>9,.0f}")
        print(f"  {'ours vs instanced moderngl, same picture':<54}"
              f"{r[f'vs_moderngl_{key}']:>8.2f}x   (target >= 1.5x)")  # fmt: skip
        fixed_ms = 1e3 / r[f"ours_one_world_fps_{key}"]
        whole_ms = 1e3 * r["worlds"] / r[f"ours_fps_{key}"]
        per_world_us = 1e3 * (whole_ms - fixed_ms) / (r["worlds"] - 1)
        planes = 1.0 - r[f"ours_fps_{key}"] / r[f"ours_without_planes_fps_{key}"]
        print(f"  where our time goes: {whole_ms:.1f} ms a render = {fixed_ms:.1f} ms for one "
              f"world + {per_world_us:.0f} us per further world; the ground plane is "
              f"{planes:.0%} of it ({r[f'ours_without_planes_fps_{key}']:,.0f} frames/s "
              "without)")  # fmt: skip
    print(f"pose sync of {r['worlds']} humanoid worlds: {r['sync_rows_per_s'] / 1e6:.1f} M rows/s "
          f"vs per-geom Python {r['python_rows_per_s'] / 1e6:.2f} M rows/s = "
          f"{r['sync_vs_python']:.0f}x   (target >= 50x)")  # fmt: skip
    print(f"HalfCheetah-v5 end to end, pixel env-steps/s: VectorPixelObservations x{r['envs']} "
          f"{r['env_steps_per_s_ours']:,.0f} vs gymnasium render_mode='rgb_array' "
          f"{r['env_steps_per_s_gymnasium']:,.1f} = {r['env_steps_vs_gymnasium']:.0f}x; our "
          f"step {r['env_ours_ms']:.1f} ms: physics + gymnasium's Python "
          f"{r['env_physics_ms']:.1f} ms, the render {r['env_render_ms']:.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
