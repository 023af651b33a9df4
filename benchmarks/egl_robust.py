"""What a robust-access EGL context costs: draws_10k and the RL renderer, robust vs plain.

The engine asks for robust buffer access (EGL_EXT_create_context_robustness)
where the driver grants it, as a safety net for what the VM cannot check;
``HYPERGL_EGL_ROBUST=0`` asks for a plain context. Both run in one process,
interleaved; ratios are medians of per-round time ratios (robust / plain).

    python benchmarks/egl_robust.py [--repeat N] [--json FILE]
"""

from __future__ import annotations

import os

import draws_10k
import rl_throughput
from _common import interleaved, median, pairwise_ratio, parser, write_json


def made(robust: bool, make, *args):
    os.environ["HYPERGL_EGL_ROBUST"] = "1" if robust else "0"
    try:
        return make(*args)
    finally:
        os.environ.pop("HYPERGL_EGL_ROBUST")


def main() -> None:
    args = parser(__doc__.splitlines()[0], repeat=15).parse_args()
    vertices = draws_10k.triangles()
    runs = {}
    for robust in (True, False):
        ctx, _fb, vm, mdi = made(robust, draws_10k.hypergl_variants, vertices)
        if robust and not ctx._host.egl.robust_access:
            print("this driver grants no robust access: nothing to compare")
            return
        runs[f"draws_vm_{robust}"], runs[f"draws_mdi_{robust}"] = vm, mdi
    for envs in (1, 16, 256):
        frames = max(1, 1024 // envs)
        for robust in (True, False):
            run, _renderer, _ = made(robust, rl_throughput.hypergl_variant, envs, frames)
            runs[f"rl{envs}_{robust}"] = run
    samples = interleaved(runs, args.repeat)
    results = {}
    print(f"robust vs plain context, medians of {args.repeat} interleaved rounds")
    for name in ("draws_vm", "draws_mdi", "rl1", "rl16", "rl256"):
        ratio = pairwise_ratio(samples[f"{name}_True"], samples[f"{name}_False"])
        results[f"robust_vs_plain_{name}"] = ratio
        robust_ms = median(samples[f"{name}_True"]) * 1e3
        plain_ms = median(samples[f"{name}_False"]) * 1e3
        print(f"  {name:<10} robust {robust_ms:8.2f} ms   plain {plain_ms:8.2f} ms   "
              f"time ratio {ratio:.3f}x")  # fmt: skip
    write_json(args.json, results)


if __name__ == "__main__":
    main()
