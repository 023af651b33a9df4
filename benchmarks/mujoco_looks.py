"""What per-world looks cost hypergl_mujoco: N worlds at 84x84 RGB, default picture.

Interleaved rounds, medians of milliseconds, for gymnasium's half_cheetah and humanoid seen
by their "track" camera, each world in its own state:

  render         ``render(data)`` with the model's looks (every world alike)
  randomised     new looks for every world before each render: random rgba for every
                 geom, a random material of the model for every geom, every light moved
                 (``set_geom_rgba``, ``set_geom_material``, ``set_light_pose``), then
                 ``render(data)`` (the cameras stay: a camera moved changes what is drawn)
  set_only       those three calls and ``set_camera_pose`` for every world, alone (what
                 randomising adds on the CPU)

``render`` against another build's figure (run this script there) is what the look rows
cost a frame that does not randomise.

    python benchmarks/mujoco_looks.py [--repeat N] [--worlds N] [--json FILE]
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

os.environ.setdefault("MUJOCO_GL", "egl")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import interleaved, median, parser, write_json
from mujoco_pixels import MODELS, SIZE, load_model, worlds


def randomiser(renderer, model, count: int):
    """The four calls with new random values each time."""
    rng = np.random.default_rng(0)
    eye = np.eye(3)

    def randomise(cameras: bool = True) -> None:
        rgba = rng.uniform(0, 1, (count, model.ngeom, 4))
        rgba[..., 3] = 1.0  # opaque, as the model's geoms
        renderer.set_geom_rgba(rgba)
        if model.nmat:
            renderer.set_geom_material(rng.integers(-1, model.nmat, (count, model.ngeom)))
        if model.nlight:
            renderer.set_light_pose(
                rng.normal(0, 1, (count, 1, 3)) + np.array([0, 0, 4]), (0, 0, -1)
            )
        if cameras:
            renderer.set_camera_pose(rng.normal(0, 0.2, (count, 1, 3)) + np.array([0, -4, 1]), eye)
            renderer.reset_looks()  # the cameras back (and every look: set again next call)

    return randomise


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeat=7)
    p.add_argument("--worlds", type=int, default=64, help="worlds (default %(default)s)")
    p.add_argument("--plain", action="store_true", help="render only (a build without looks)")
    args = p.parse_args()
    import hypergl_mujoco

    results: dict[str, dict[str, float]] = {}
    for label, name in MODELS.items():
        model = load_model(name)
        datas = worlds(model, args.worlds)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            renderer = hypergl_mujoco.BatchRenderer(model, args.worlds, ["track"], SIZE, SIZE,
                                                    ("rgb",))  # fmt: skip
        try:
            calls = {"render": lambda r=renderer, d=datas: r.render(d)}
            if not args.plain:
                randomise = randomiser(renderer, model, args.worlds)

                def randomised(r=renderer, d=datas, f=randomise) -> None:
                    f(cameras=False)
                    r.render(d)

                calls["randomised"], calls["set_only"] = randomised, randomise
            samples = interleaved(calls, args.repeat)
        finally:
            renderer.close()
        results[label] = {k: round(median(v) * 1e3, 2) for k, v in samples.items()}
        figures = "  ".join(f"{k} {v:.2f} ms" for k, v in results[label].items())
        print(f"{label:9s} {args.worlds} worlds: {figures}", flush=True)
    write_json(args.json, {"worlds": args.worlds, "ms": results})


if __name__ == "__main__":
    main()
