"""Height fields: a 201x201 height field at 84x84 RGB, hypergl_mujoco against mujoco.Renderer.

A terrain of 201 x 201 points (80,000 triangles, 4 x 4 m) with a ball on it, seen from a
fixed camera, in 1, 16 and 64 worlds. Interleaved rounds, medians, frames a second (worlds
per render for ours, one world per ``update_scene`` + ``render`` for MuJoCo's):

  ours            the default picture (lights, materials, shadows)
  ours_no_shadow  ``mjRND_SHADOW`` off: no depth pass of the height field into the maps
  ours_no_hfield  the height field hidden (alpha 0): what the rest of the scene costs
  mujoco          ``mujoco.Renderer(model, 84, 84)`` with its defaults

    python benchmarks/mujoco_hfield.py [--repeat N] [--worlds 1,16,64] [--json FILE]
"""

from __future__ import annotations

import copy
import os
import sys
import warnings
from pathlib import Path

os.environ.setdefault("MUJOCO_GL", "egl")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import interleaved, median, parser, write_json

SIZE = 84
N = 201
XML = f"""<mujoco><asset>
  <hfield name="terrain" nrow="{N}" ncol="{N}" size="2 2 0.4 0.1"/>
</asset><worldbody>
  <light pos="0 0 4" dir="0 0 -1"/>
  <geom name="terrain" type="hfield" hfield="terrain" rgba="0.5 0.6 0.4 1"/>
  <body pos="0 0 0.8"><freejoint/><geom type="sphere" size="0.2" rgba="0.9 0.3 0.2 1"/></body>
  <camera name="view" pos="0 -4 2.5" xyaxes="1 0 0 0 0.6 0.8"/>
</worldbody></mujoco>"""


def load_model():
    import mujoco

    model = mujoco.MjModel.from_xml_string(XML)
    x = np.linspace(0, 6 * np.pi, N)
    hills = 0.5 + 0.25 * np.sin(x)[None, :] * np.cos(x)[:, None]
    model.hfield_data[:] = hills.ravel()
    return model


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeat=5)
    p.add_argument("--worlds", default="1,16,64", help="world counts (default %(default)s)")
    args = p.parse_args()
    import mujoco

    import hypergl_mujoco

    model = load_model()
    hidden = copy.copy(model)
    hidden.geom_rgba[0, 3] = 0.0
    mine = mujoco.Renderer(model, SIZE, SIZE)
    results = {}
    for count in (int(n) for n in args.worlds.split(",")):
        datas = []
        for k in range(count):
            data = mujoco.MjData(model)
            data.qpos[0] = 0.1 * k / max(count, 1)
            mujoco.mj_forward(model, data)
            datas.append(data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = {
                "ours": hypergl_mujoco.BatchRenderer(model, count, ["view"], SIZE, SIZE, ("rgb",)),
                "ours_no_shadow": hypergl_mujoco.BatchRenderer(
                    model, count, ["view"], SIZE, SIZE, ("rgb",),
                    scene_flags={"mjRND_SHADOW": False}),
                "ours_no_hfield": hypergl_mujoco.BatchRenderer(
                    hidden, count, ["view"], SIZE, SIZE, ("rgb",)),
            }  # fmt: skip

        def theirs(d=datas[0]) -> None:
            mine.update_scene(d, "view")
            mine.render()

        calls = {name: (lambda r=r, d=datas: r.render(d)) for name, r in ours.items()}
        calls["mujoco"] = theirs
        try:
            samples = interleaved(calls, args.repeat)
        finally:
            for renderer in ours.values():
                renderer.close()
        fps = {name: (1 if name == "mujoco" else count) / median(v) for name, v in samples.items()}
        results[count] = {k: round(v, 1) for k, v in fps.items()}
        ratio = fps["ours"] / fps["mujoco"]
        print(f"{count:3d} worlds: " + "  ".join(f"{k} {v:,.1f}/s" for k, v in fps.items())
              + f"  ours/mujoco {ratio:.1f}x", flush=True)  # fmt: skip
    write_json(args.json, {"frames_per_second": results})


if __name__ == "__main__":
    main()
