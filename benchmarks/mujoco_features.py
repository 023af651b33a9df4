"""What each part of MuJoCo's picture costs hypergl_mujoco: 256 worlds at 84x84 RGB.

Interleaved rounds (A B C D A B C D ...), medians of milliseconds a render, for gymnasium's
half_cheetah and humanoid seen by their "track" camera, each world in its own state:

  default        every feature of the default picture (lights, materials, textures,
                 skybox and haze, shadows)
  no_shadows     ``scene_flags={"mjRND_SHADOW": False}``: no depth pass for the maps
  no_sky         shadows and ``mjRND_SKYBOX`` (with it the haze) off
  no_textures    those and ``texture=False``: lights and materials only

The differences between neighbours are each feature's cost. Compare ``default`` with
benchmarks/mujoco_pixels.py's figures of another build for the cost of the whole picture.

    python benchmarks/mujoco_features.py [--repeat N] [--worlds N] [--json FILE]
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

os.environ.setdefault("MUJOCO_GL", "egl")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import interleaved, median, parser, write_json
from mujoco_pixels import MODELS, SIZE, load_model, worlds

VARIANTS = {
    "default": {},
    "no_shadows": {"scene_flags": {"mjRND_SHADOW": False}},
    "no_sky": {"scene_flags": {"mjRND_SHADOW": False, "mjRND_SKYBOX": False}},
    "no_textures": {"scene_flags": {"mjRND_SHADOW": False, "mjRND_SKYBOX": False},
                    "texture": False},
}  # fmt: skip


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeat=7)
    p.add_argument("--worlds", type=int, default=256, help="worlds (default %(default)s)")
    args = p.parse_args()
    import hypergl_mujoco

    results: dict[str, dict[str, float]] = {}
    for label, name in MODELS.items():
        model = load_model(name)
        datas = worlds(model, args.worlds)
        renderers = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for variant, options in VARIANTS.items():
                renderers[variant] = hypergl_mujoco.BatchRenderer(
                    model, args.worlds, ["track"], SIZE, SIZE, ("rgb",), **options
                )
        try:
            calls = {v: (lambda r=r, d=datas: r.render(d)) for v, r in renderers.items()}
            samples = interleaved(calls, args.repeat)
        finally:
            for renderer in renderers.values():
                renderer.close()
        results[label] = {v: round(1000 * median(s), 1) for v, s in samples.items()}
        figures = results[label]
        print(f"{label} ({name}.xml), {args.worlds} worlds, ms a render: "
              + ", ".join(f"{v} {t}" for v, t in figures.items()))  # fmt: skip
        print(f"  shadows {figures['default'] - figures['no_shadows']:.1f} ms, sky and haze "
              f"{figures['no_shadows'] - figures['no_sky']:.1f} ms, textures "
              f"{figures['no_sky'] - figures['no_textures']:.1f} ms")  # fmt: skip
    write_json(args.json, {"worlds": args.worlds, "size": SIZE, "ms_per_render": results})


if __name__ == "__main__":
    main()
