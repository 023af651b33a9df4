import os, sys
sys.path.insert(0, os.path.join(os.getcwd(), "benchmarks"))
from _common import interleaved, median, pairwise_ratio
import draws_10k
MODES = {"per_call": {}, "gl_thread": {"HYPERGL_GL_THREAD": "1"}, "keep_current": {"HYPERGL_EGL_KEEP_CURRENT": "1"}}
repeat = int(sys.argv[1]); vertices = draws_10k.triangles(); runs = {}
for m, env in MODES.items():
    os.environ.update(env); ctx, fb, run_vm, run_mdi = draws_10k.hypergl_variants(vertices); runs["vm_" + m] = run_vm; runs["mdi_" + m] = run_mdi
    for k in env: os.environ.pop(k)
s = interleaved(runs, repeat)
print("  ".join(f"{k} {median(v)*1e3:.2f} ms" for k, v in s.items()))
for b in ("vm", "mdi"):
    print(f"{b}: speed per_call/gl_thread {pairwise_ratio(s[b+'_gl_thread'], s[b+'_per_call']):.3f}x  per_call/keep_current {pairwise_ratio(s[b+'_keep_current'], s[b+'_per_call']):.3f}x")
