"""Culverin -> GPU sync of 10,000 bodies: the bridge against two Python alternatives.

Same run, interleaved rounds, medians (ratios are medians of per-round ratios):

* ``bridge``          ``bridge.sync()``: the C++ conversion of Culverin's shadow buffers
                      into the persistently mapped SSBO (positions f64 -> f32, rotations,
                      user_data ids), GIL released.
* ``per-body Python`` ``world.get_position(h)`` / ``get_rotation(h)`` per body, each packed
                      into the same mapped buffer with ``struct.pack_into``.
* ``render state``    ``world.get_render_state(1.0)`` (bytes, 7 float32 per body) then a
                      NumPy strided write of positions and rotations into the mapped buffer.

Run: ``python benchmarks/culverin_sync.py [--json FILE] [--repeat N]``.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import interleaved, median, pairwise_ratio, parser, write_json

BODIES = 10_000


def make_world():
    import culverin

    world = culverin.PhysicsWorld(settings={"max_bodies": 16_384})
    floor = world.create_body(pos=(0, -1, 0), size=(200, 1, 200), shape=culverin.SHAPE_BOX,
                      motion=culverin.MOTION_STATIC)  # fmt: skip
    side = 100
    positions = [
        (-100 + 2.0 * (i % side), 2.0 + (i // side) * 0.01, -100 + 2.0 * (i // side))
        for i in range(BODIES - 1)
    ]
    spheres = world.create_bodies_batch(positions, [0.4] * len(positions), culverin.SHAPE_SPHERE)
    for _ in range(5):  # non-trivial rotations and velocities
        world.step(1 / 60)
    return world, [floor, *spheres]


def main() -> None:
    args = parser(__doc__.splitlines()[0], repeat=30).parse_args()
    import hypergl

    world, handles = make_world()
    ctx = hypergl.context()
    bridge = ctx.bridge("culverin", world, capacity=BODIES + 16)
    rows = bridge.sync()
    assert rows == world.count == BODIES, (rows, world.count)
    record = bridge.record_size
    target = ctx.buffer(size=bridge.capacity * record, name="python_target")
    raw = target.map(np.uint8)
    view = memoryview(raw)
    floats = target.map(np.float32, (bridge.capacity, record // 4))
    pack = struct.Struct("<3f4x4f").pack_into  # position xyz, pad, rotation xyzw
    get_position, get_rotation = world.get_position, world.get_rotation

    def per_body_python() -> None:
        offset = 0
        for handle in handles:
            x, y, z = get_position(handle)
            qx, qy, qz, qw = get_rotation(handle)
            pack(view, offset, x, y, z, qx, qy, qz, qw)
            offset += record

    def render_state() -> None:
        state = np.frombuffer(world.get_render_state(1.0), np.float32).reshape(-1, 7)
        n = len(state)
        floats[:n, 0:3] = state[:, 0:3]
        floats[:n, 4:8] = state[:, 3:7]

    # The Python variants must produce what the bridge does (for the bodies they cover).
    per_body_python()
    check = floats[: len(handles), 0:3]
    bodies = bridge.records()
    index = np.array([world.get_index(h) for h in handles])
    assert np.allclose(check, bodies["position"][index, :3], atol=1e-5)

    samples = interleaved(
        {"bridge": bridge.sync, "per_body_python": per_body_python, "render_state": render_state},
        args.repeat,
    )
    # Context only (not a headline): the same sync back to back, caches and CPU warm. On
    # this 2-core VM the first call after a long stretch of Python pays tens of microseconds
    # for any GIL release or syscall, which the interleaved rounds above include.
    warm = interleaved({"bridge_warm": lambda: [bridge.sync() for _ in range(20)]}, args.repeat)
    results = {
        "bodies": BODIES,
        "bridge_us": median(samples["bridge"]) * 1e6,
        "per_body_python_us": median(samples["per_body_python"]) * 1e6,
        "render_state_us": median(samples["render_state"]) * 1e6,
        "vs_per_body": pairwise_ratio(samples["per_body_python"], samples["bridge"]),
        "vs_render_state": pairwise_ratio(samples["render_state"], samples["bridge"]),
        "bridge_warm_us": median(warm["bridge_warm"]) / 20 * 1e6,
    }
    print(f"Culverin sync of {BODIES} bodies ({args.repeat} interleaved rounds, medians)")
    print(f"{'variant':<34}{'median us':>12}{'bridge is':>14}")
    print(f"{'bridge.sync() (C++, no GIL)':<34}{results['bridge_us']:>12.1f}{'':>14}")
    print(f"{'per-body get_position/rotation':<34}{results['per_body_python_us']:>12.1f}"
          f"{results['vs_per_body']:>13.1f}x")  # fmt: skip
    print(f"{'get_render_state + NumPy write':<34}{results['render_state_us']:>12.1f}"
          f"{results['vs_render_state']:>13.1f}x")  # fmt: skip
    print(f"{'(bridge.sync() back to back, warm)':<34}{results['bridge_warm_us']:>12.1f}")
    print("targets: >= 200x vs per-body Python, >= 2x vs get_render_state + write")
    write_json(args.json, results)
    bridge.release()
    ctx.close()


if __name__ == "__main__":
    main()
