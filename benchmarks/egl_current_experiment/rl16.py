import os, sys
sys.path.insert(0, os.path.join(os.getcwd(), "benchmarks"))
from _common import interleaved, median, pairwise_ratio
import rl_throughput
MODES = {"per_call": {}, "gl_thread": {"HYPERGL_GL_THREAD": "1"}, "keep_current": {"HYPERGL_EGL_KEEP_CURRENT": "1"}}
envs = int(sys.argv[1]); repeat = int(sys.argv[2]); frames = max(1, 2048 // envs)
runs = {}
for m, env in MODES.items():
    os.environ.update(env); run, renderer, _ = rl_throughput.hypergl_variant(envs, frames); runs[m] = run
    for k in env: os.environ.pop(k)
s = interleaved(runs, repeat)
print(f"E={envs} calls/run={frames}: " + "  ".join(f"{k} {envs*frames/median(v):,.0f}" for k, v in s.items())
      + f"  | speed per_call/gl_thread {pairwise_ratio(s['gl_thread'], s['per_call']):.3f}x  per_call/keep_current {pairwise_ratio(s['keep_current'], s['per_call']):.3f}x")
