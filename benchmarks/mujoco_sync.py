"""MuJoCo -> GPU pose sync of 256 Humanoid-v5 worlds: one attribute source over the list
of MjData against two Python alternatives.

Same run, interleaved rounds, medians (ratios are medians of per-round ratios). Each
variant writes the body renderer's 64-byte matrix records (position f64 -> f32, xmat
3x3 f64 -> f32, row = world * ngeom + geom) into a persistently mapped buffer:

* ``source``          ``ctx.upload(source, buffer)``: ``ctx.attribute_source(owners=datas,
                      names=["geom_xpos", "geom_xmat"], keep_views=True)``, C++, GIL released.
* ``per-geom Python`` per world, per geom: ``struct.pack_into`` of its xpos and xmat rows.
* ``per-world NumPy`` per world: two strided NumPy writes into the mapped records.

Run: ``python benchmarks/mujoco_sync.py [--json FILE] [--repeat N] [--worlds N]``.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import interleaved, median, pairwise_ratio, parser, write_json

RECORD = 64  # struct { vec3 position; uint id; float xmat[9]; } + padding
FIELDS = [
    {"source": 0, "type": "f64", "stride": 24, "components": 3, "to": "f32", "at": 0},
    {"source": 1, "type": "f64", "stride": 72, "components": 9, "to": "f32", "at": 16},
]


def make_worlds(count: int):
    import gymnasium
    import mujoco

    xml = Path(gymnasium.__file__).parent / "envs/mujoco/assets/humanoid.xml"
    model = mujoco.MjModel.from_xml_path(str(xml))
    rng = np.random.default_rng(0)
    worlds = []
    for _ in range(count):
        data = mujoco.MjData(model)
        data.qpos[:] += rng.normal(0, 0.1, model.nq)  # non-trivial rotations
        mujoco.mj_forward(model, data)
        worlds.append(data)
    return model, worlds


def sync_variants(count: int):
    """(variants, rows, geoms per world, close): the three ways to write `count` worlds'
    records, checked to write the same bytes (benchmarks/mujoco_pixels.py reuses them)."""
    import hypergl

    model, worlds = make_worlds(count)
    rows = count * model.ngeom
    ctx = hypergl.context()
    target = ctx.buffer(size=rows * RECORD, name="records")
    source = ctx.attribute_source(owners=worlds, names=["geom_xpos", "geom_xmat"],
                                  fields=FIELDS, record_size=RECORD,
                                  keep_views=True)  # fmt: skip
    floats = target.map(np.float32, (rows, RECORD // 4))
    view = memoryview(target.map(np.uint8))
    pack = struct.Struct("<3f4x9f").pack_into
    ngeom = model.ngeom

    def upload() -> None:
        ctx.upload(source, target)

    def per_geom_python() -> None:
        offset = 0
        for data in worlds:
            xpos, xmat = data.geom_xpos, data.geom_xmat
            for g in range(ngeom):
                pack(view, offset, *xpos[g], *xmat[g])
                offset += RECORD

    def per_world_numpy() -> None:
        for w, data in enumerate(worlds):
            floats[w * ngeom : (w + 1) * ngeom, 0:3] = data.geom_xpos
            floats[w * ngeom : (w + 1) * ngeom, 4:13] = data.geom_xmat

    # Every variant must write what the source does.
    upload()
    want = floats.copy()
    for variant in (per_geom_python, per_world_numpy):
        floats[:] = 0
        variant()
        assert np.array_equal(floats[:, :13], want[:, :13]), variant.__name__

    variants = {"source": upload, "per_geom_python": per_geom_python,
                "per_world_numpy": per_world_numpy}  # fmt: skip

    def close() -> None:
        source.release()
        ctx.close()

    return variants, rows, ngeom, close


def main() -> None:
    p = parser(__doc__.splitlines()[0], repeat=30)
    p.add_argument("--worlds", type=int, default=256)
    args = p.parse_args()
    variants, rows, ngeom, close = sync_variants(args.worlds)
    samples = interleaved(variants, args.repeat)
    results = {
        "worlds": args.worlds,
        "geoms_per_world": ngeom,
        "rows": rows,
        "source_us": median(samples["source"]) * 1e6,
        "per_geom_python_us": median(samples["per_geom_python"]) * 1e6,
        "per_world_numpy_us": median(samples["per_world_numpy"]) * 1e6,
        "source_rows_per_s": rows / median(samples["source"]),
        "per_geom_python_rows_per_s": rows / median(samples["per_geom_python"]),
        "sync_vs_python": pairwise_ratio(samples["per_geom_python"], samples["source"]),
        "sync_vs_numpy": pairwise_ratio(samples["per_world_numpy"], samples["source"]),
    }
    print(f"MuJoCo sync of {args.worlds} worlds x {ngeom} geoms = {rows} rows "
          f"({args.repeat} interleaved rounds, medians)")  # fmt: skip
    print(f"{'variant':<30}{'median us':>12}{'Mrows/s':>10}{'source is':>12}")
    for key, label, ratio in (
        ("source", "attribute source (C++)", None),
        ("per_geom_python", "per-geom Python pack_into", "sync_vs_python"),
        ("per_world_numpy", "per-world NumPy writes", "sync_vs_numpy"),
    ):
        us = results[f"{key}_us"]
        shown = f"{results[ratio]:>11.1f}x" if ratio else ""
        print(f"{label:<30}{us:>12.1f}{rows / us:>10.2f}{shown:>12}")
    print("target: >= 50x vs per-geom Python")
    write_json(args.json, results)
    close()


if __name__ == "__main__":
    main()
