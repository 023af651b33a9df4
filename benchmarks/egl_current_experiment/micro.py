import os, time, statistics, hypergl
MODES = {"per_call": {}, "gl_thread": {"HYPERGL_GL_THREAD": "1"}, "keep_current": {"HYPERGL_EGL_KEEP_CURRENT": "1"}}
ctxs = {}
for m, env in MODES.items():
    os.environ.update(env); ctxs[m] = hypergl.context()
    for k in env: os.environ.pop(k)
res = {m: [] for m in MODES}
for r in range(7):
    for m, c in ctxs.items():
        fb = c._native
        t = time.perf_counter()
        for _ in range(5000): fb.check_errors()
        res[m].append((time.perf_counter() - t) / 5000 * 1e6)
for m, v in res.items(): print(f"{m:<13} {statistics.median(v):6.2f} us per native call")
