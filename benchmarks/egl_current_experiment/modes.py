"""EXPERIMENT: per-call eglMakeCurrent (enter/leave) vs an owned GL thread vs never letting go.
Same process, interleaved rounds. Run from benchmarks/ (imports draws_10k, rl_throughput)."""
import os, sys, statistics
sys.path.insert(0, os.path.join(os.getcwd(), "benchmarks"))
from _common import interleaved, median, pairwise_ratio
import draws_10k, rl_throughput

MODES = {"per_call": {}, "gl_thread": {"HYPERGL_GL_THREAD": "1"}, "keep_current": {"HYPERGL_EGL_KEEP_CURRENT": "1"}}
def under(mode, make):
    saved = dict(os.environ)
    os.environ.update(MODES[mode])
    try:
        return make()
    finally:
        for k in ("HYPERGL_GL_THREAD", "HYPERGL_EGL_KEEP_CURRENT"):
            os.environ.pop(k, None)

repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 9
vertices = draws_10k.triangles()
runs = {}
for mode in MODES:
    ctx, fb, run_vm, run_mdi = under(mode, lambda: draws_10k.hypergl_variants(vertices))
    runs[f"vm_{mode}"] = run_vm
    runs[f"mdi_{mode}"] = run_mdi
s = interleaved(runs, repeat)
print("draws_10k (ms, medians of %d):" % repeat)
for k, v in s.items(): print(f"  {k:<20} {median(v)*1e3:8.2f} ms")
for base in ("vm", "mdi"):
    print(f"  {base}: gl_thread/per_call time {pairwise_ratio(s[f'{base}_gl_thread'], s[f'{base}_per_call']):.3f}x, keep_current/per_call {pairwise_ratio(s[f'{base}_keep_current'], s[f'{base}_per_call']):.3f}x")

for envs in (1, 16, 256):
    frames = max(1, 2048 // envs)
    runs = {}
    for mode in MODES:
        run, renderer, _ = under(mode, lambda: rl_throughput.hypergl_variant(envs, frames))
        runs[mode] = run
    s = interleaved(runs, repeat)
    fps = {k: envs * frames / median(v) for k, v in s.items()}
    print(f"rl E={envs}: " + "  ".join(f"{k} {v:,.0f} env-frames/s" for k, v in fps.items())
          + f"   per_call/gl_thread speed {pairwise_ratio(s['gl_thread'], s['per_call']):.3f}x"
          + f"   per_call/keep_current {pairwise_ratio(s['keep_current'], s['per_call']):.3f}x")
