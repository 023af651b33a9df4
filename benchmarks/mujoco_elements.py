"""MuJoCo's elements beside geoms and sites: what spatial tendons, skins and flexes cost.

Interleaved (A B A B ...), medians, 84x84 RGB, every world in its own state, each model's
camera 0: a model drawn with its element (MuJoCo's default ``MjvOption``) against the
same model with the element's flag off (``scene_option``), and ``mujoco.Renderer`` with
its defaults on the same model (a few worlds looped; its cost per frame does not depend
on how many):

  tendon   dm_control's ball_in_cup (a two-site tether, a catenary when slack), 256 worlds
  skin     dm_control's dog (its body: a skin of 24,065 vertices, 33,900 faces, 57 bones),
           --skin-worlds worlds (64)
  flex     a 12 x 12 cloth (flexcomp, dim 2, radius 5 mm) falling on a plane, 256 worlds

The dm_control models need dm_control's files (installed, or on PYTHONPATH); without them
those rows are left out. A model without an element pays nothing for it (its layer is
never made): ``--baseline SRC`` shows it, the cheetah and humanoid of
benchmarks/mujoco_pixels.py (256 worlds) drawn by this checkout and by SRC, a folder
holding another version's ``hypergl``, ``hypergl_compiler`` and ``hypergl_mujoco`` (e.g.
main's sources with this build's ``_core`` copied in), each in processes of its own
taking turns.

    python benchmarks/mujoco_elements.py [--repeat N] [--skin-worlds N] [--baseline SRC]
                                         [--json FILE]
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("MUJOCO_GL", "egl")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (
    interleaved,
    interleaved_in_processes,
    median,
    pairwise_ratio,
    parser,
    write_json,
)

SIZE = 84
WORLDS = 256
CLOTH = """<mujoco><worldbody><geom type="plane" size="3 3 .1"/>
  <flexcomp name="cloth" type="grid" count="12 12 1" spacing=".05 .05 .05" pos="0 0 .6"
            radius=".005" dim="2" rgba=".2 .6 .9 1"><edge equality="true"/></flexcomp>
  <camera name="front" pos="0 -1.6 1" xyaxes="1 0 0 0 .5 1"/>
</worldbody></mujoco>"""
# the flags that leave the element out (a flex without its skin is drawn by its edges)
FLAGS = {"tendon": ("mjVIS_TENDON",), "skin": ("mjVIS_SKIN",),
         "flex": ("mjVIS_FLEXSKIN", "mjVIS_FLEXEDGE")}  # fmt: skip


def suite_model(name: str):
    import mujoco

    spec = importlib.util.find_spec("dm_control")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "suite" / f"{name}.xml"
    return mujoco.MjModel.from_xml_path(str(path))


def states(model, count: int, steps: int) -> list:
    """`count` worlds, each `steps` random-control steps from its own perturbed start."""
    import mujoco

    rng = np.random.default_rng(0)
    out = []
    for _ in range(count):
        data = mujoco.MjData(model)
        data.qpos[:] += rng.normal(0.0, 0.05, model.nq)
        for _ in range(steps):
            if model.nu:
                data.ctrl[:] = rng.uniform(-1, 1, model.nu)
            mujoco.mj_step(model, data)
        mujoco.mj_forward(model, data)
        out.append(data)
    return out


def models(skin_worlds: int) -> dict:
    import warnings

    import mujoco

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MuJoCo's own about the cloth's stiffness
        cloth = mujoco.MjModel.from_xml_string(CLOTH)
    found = {
        "tendon": (suite_model("ball_in_cup"), WORLDS),
        "skin": (suite_model("dog"), skin_worlds),
        "flex": (cloth, WORLDS),
    }
    return {key: value for key, value in found.items() if value[0] is not None}


def make_variant(name: str, baseline: str | None = None):
    """(run, read) of 'ours' (this checkout) or 'baseline' (SRC's packages) drawing
    `model` (cheetah or humanoid) in its own process: the --baseline comparison."""
    which, key = name.split("_", 1)
    if which == "baseline":  # SRC's packages first, past an editable install's finder
        sys.path.insert(0, str(baseline))
        sys.meta_path[:] = [f for f in sys.meta_path
                            if not type(f).__module__.startswith("_editable")]  # fmt: skip
    from mujoco_pixels import MODELS, load_model, worlds

    from hypergl_mujoco import BatchRenderer

    model = load_model(MODELS[key])
    datas = worlds(model, WORLDS)
    renderer = BatchRenderer(model, WORLDS, ["track"], SIZE, SIZE, ("rgb",))
    import hypergl
    import hypergl_mujoco

    return (lambda: renderer.render(datas)), (lambda: (hypergl_mujoco.__file__, hypergl.__file__))


def timed_render(renderer, datas, split: list) -> None:
    """A render, its snapshot (the CPU's part: poses, tendon rows, skin bones) and its draw
    timed apart."""
    start = time.perf_counter()
    renderer.snapshot(datas)
    middle = time.perf_counter()
    renderer.draw()
    split.append((middle - start, time.perf_counter() - middle))


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeat=5)
    p.add_argument("--skin-worlds", type=int, default=64, help="worlds of the dog (default 64)")
    p.add_argument("--baseline", help="another checkout (its packages/ folder's sources)")
    args = p.parse_args()
    import mujoco

    from hypergl_mujoco import BatchRenderer

    variants, frames, closers, splits = {}, {}, [], {}
    found = models(args.skin_worlds)
    for key, (model, count) in found.items():
        datas = states(model, count, 30)
        off = mujoco.MjvOption()
        for flag in FLAGS[key]:
            off.flags[getattr(mujoco.mjtVisFlag, flag)] = 0
        camera = [0] if model.ncam else None
        for label, option in (("on", None), ("off", off)):
            renderer = BatchRenderer(
                model, count, camera, SIZE, SIZE, ("rgb",), scene_option=option
            )
            splits[f"{key}_{label}"] = split = []
            variants[f"{key}_{label}"] = lambda r=renderer, d=datas, s=split: timed_render(r, d, s)
            frames[f"{key}_{label}"] = count
            closers.append(renderer.close)
        reference = mujoco.Renderer(model, SIZE, SIZE)

        def loop(r=reference, d=datas[:4], c=(camera or [-1])[0]) -> None:
            for data in d:
                r.update_scene(data, c)
                r.render()

        variants[f"{key}_mujoco"], frames[f"{key}_mujoco"] = loop, 4
        closers.append(reference.close)
    samples = interleaved(variants, args.repeat)
    per_frame = {name: [t / frames[name] for t in times] for name, times in samples.items()}
    results: dict = {"size": SIZE, "repeat": args.repeat}
    print(f"MuJoCo's elements at {SIZE}x{SIZE} RGB, {args.repeat} interleaved rounds, medians")
    for key, (_, count) in found.items():
        on, off = per_frame[f"{key}_on"], per_frame[f"{key}_off"]
        cost_ms = (median(samples[f"{key}_on"]) - median(samples[f"{key}_off"])) * 1e3
        mujoco_frame = per_frame[f"{key}_mujoco"]
        results.update({
            f"{key}_worlds": count,
            f"{key}_on_fps": 1 / median(on),
            f"{key}_off_fps": 1 / median(off),
            f"{key}_cost_ratio": pairwise_ratio(on, off),
            f"{key}_cost_ms_per_render": cost_ms,
            f"{key}_vs_mujoco": pairwise_ratio(mujoco_frame, on),
        })  # fmt: skip
        snap, draw = (
            [median([t[k] for t in splits[f"{key}_{label}"]]) * 1e3 for label in ("on", "off")]
            for k in (0, 1)
        )
        results[f"{key}_snapshot_ms"], results[f"{key}_draw_ms"] = snap, draw
        without = " and ".join(FLAGS[key])
        print(f"  {key:<7} {count:>4} worlds: {1 / median(on):>8,.0f} frames/s drawn, "
              f"{1 / median(off):>8,.0f} without ({without} off): "
              f"x{results[f'{key}_cost_ratio']:.2f} the time, {cost_ms:+.1f} ms a render "
              f"(snapshot {snap[0]:.1f} ms vs {snap[1]:.1f}, draw {draw[0]:.1f} vs "
              f"{draw[1]:.1f}); {results[f'{key}_vs_mujoco']:.1f}x mujoco.Renderer's defaults "
              f"({1 / median(mujoco_frame):,.0f} frames/s)")  # fmt: skip
    missing = sorted(set(FLAGS) - set(found))
    if missing:
        print(f"  left out (dm_control's files not found): {', '.join(missing)}")
    for close in reversed(closers):
        close()
    if args.baseline:
        names = [
            f"{which}_{key}" for key in ("cheetah", "humanoid") for which in ("ours", "baseline")
        ]
        timed, where = interleaved_in_processes("mujoco_elements", names, args.repeat,
                                                baseline=args.baseline)  # fmt: skip
        print(f"  --baseline: {where}")
        for key in ("cheetah", "humanoid"):
            ratio = pairwise_ratio(timed[f"ours_{key}"], timed[f"baseline_{key}"])
            results[f"no_elements_{key}_vs_baseline"] = ratio
            print(f"  {key}, no tendon, skin or flex, {WORLDS} worlds: this checkout "
                  f"{WORLDS / median(timed[f'ours_{key}']):,.0f} frames/s, {args.baseline} "
                  f"{WORLDS / median(timed[f'baseline_{key}']):,.0f}: "
                  f"x{ratio:.3f} the time")  # fmt: skip
    write_json(args.json, results)


if __name__ == "__main__":
    main()
