"""Processes and the llvmpipe context: AsyncVectorEnv under fork, spawn and forkserver; a
fork after a context exists fails with an error that says what to do, never a hang; triton
(its own LLVM) is loaded deep-bound beside llvmpipe instead of crashing the process.

Each case runs in a fresh interpreter: the test process itself has made EGL contexts, so it
is the parent a fork must not come from.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import hypergl.rl  # noqa: E402,F401  (registers the ids)
from hypergl.rl import REACH_ID  # noqa: E402

pytestmark = pytest.mark.gl

ACTIONS = np.random.default_rng(7).uniform(-1, 1, (3, 2, 2)).astype(np.float32)


def run_python(code: str, tmp_path, env: dict | None = None) -> subprocess.CompletedProcess:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=180, cwd=tmp_path, env={**os.environ, **(env or {})})  # fmt: skip


def rollout(venv) -> np.ndarray:
    frames = [venv.reset(seed=11)[0].copy()]
    for action in ACTIONS:
        frames.append(venv.step(action)[0].copy())
    venv.close()
    return np.stack(frames)


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_gymnasiums_async_vector_env_runs_under_each_start_method(method, tmp_path):
    np.save(tmp_path / "actions.npy", ACTIONS)
    out = run_python(
        f"""
        import numpy as np, gymnasium
        import hypergl.rl

        if __name__ == "__main__":  # spawn and forkserver import this file again
            venv = gymnasium.make_vec({REACH_ID!r}, num_envs=2, vectorization_mode="async",
                                      vector_kwargs={{"context": {method!r}}})
            frames = [venv.reset(seed=11)[0].copy()]
            for action in np.load("actions.npy"):
                frames.append(venv.step(action)[0].copy())
            venv.close()
            np.save("frames.npy", np.stack(frames))
        """,
        tmp_path,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    expected = rollout(gymnasium.make_vec(REACH_ID, num_envs=2, vectorization_mode="sync"))
    assert (np.load(tmp_path / "frames.npy") == expected).all()


def test_a_fork_after_a_context_exists_raises_instead_of_hanging(tmp_path):
    out = run_python(
        """
        import multiprocessing as mp
        import hypergl
        from hypergl.rl import ReachVectorEnv, ForkedContextError

        def child(queue):
            try:
                ReachVectorEnv(2).reset(seed=0)
                queue.put("no error")
            except ForkedContextError as exc:
                queue.put(str(exc))

        if __name__ == "__main__":
            hypergl.context().close()  # even a closed one: the EGL display stays
            ctx = mp.get_context("fork")
            queue = ctx.Queue()
            process = ctx.Process(target=child, args=(queue,))
            process.start()
            print(queue.get(timeout=60))
            process.join(60)
        """,
        tmp_path,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "forked from a process that had already made an EGL" in out.stdout
    assert "'spawn' or 'forkserver'" in out.stdout


def test_an_env_used_in_a_forked_child_raises(tmp_path):
    out = run_python(
        """
        import os
        import numpy as np
        from hypergl.rl import ReachVectorEnv, ForkedContextError
        env = ReachVectorEnv(2)
        env.reset(seed=0)
        pid = os.fork()
        if pid == 0:
            try:
                env.step(np.zeros((2, 2), np.float32))
                os._exit(3)
            except ForkedContextError as exc:
                os._exit(0 if "cannot be used in the forked process" in str(exc) else 4)
        print(os.waitpid(pid, 0)[1] >> 8)
        """,
        tmp_path,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "0"


TRITON = """
import os, sys
import hypergl.rl
from hypergl.rl import ReachVectorEnv, LLVMConflictError
{before}
ReachVectorEnv(2).reset(seed=0)
try:
    import triton.math
    print(type(sys.modules["triton.math"].__spec__.loader).__name__, triton.math.sqrt(4.0))
except LLVMConflictError as exc:
    print("refused:", exc)
"""


@pytest.fixture
def stand_in_triton(tmp_path):
    """A package named triton with an extension module (a copy of the stdlib's math module):
    what the guard deep-binds is triton's extension modules, whatever they hold."""
    import math
    import shutil

    if not getattr(math, "__file__", None):
        pytest.skip("math is built into this interpreter: no extension module to copy")
    (tmp_path / "triton").mkdir()
    (tmp_path / "triton" / "__init__.py").write_text("")
    shutil.copy(math.__file__, tmp_path / "triton" / os.path.basename(math.__file__))
    return {"PYTHONPATH": str(tmp_path)}


@pytest.mark.skipif(
    bool(os.environ.get("HYPERGL_SANITIZED")),
    reason="AddressSanitizer refuses dlopen(RTLD_DEEPBIND) (google/sanitizers#611)",
)
def test_triton_after_an_llvmpipe_context_loads_deep_bound(tmp_path, stand_in_triton):
    out = run_python(TRITON.format(before=""), tmp_path, stand_in_triton)
    assert out.returncode == 0, out.stderr[-3000:]
    if "ExtensionFileLoader" in out.stdout:
        pytest.skip(f"not llvmpipe here: {out.stdout.strip()}")
    assert out.stdout.strip() == "_DeepBindLoader 2.0"


def test_triton_before_any_context_loads_as_usual(tmp_path, stand_in_triton):
    code = TRITON.replace("ReachVectorEnv(2).reset(seed=0)\n", "")
    out = run_python(code.format(before=""), tmp_path, stand_in_triton)
    assert out.returncode == 0 and out.stdout.strip() == "ExtensionFileLoader 2.0", out.stderr


def test_without_deepbind_triton_is_refused_with_advice(tmp_path, stand_in_triton):
    out = run_python(TRITON.format(before="del os.RTLD_DEEPBIND  # a platform without it"),
                     tmp_path, stand_in_triton)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    if "ExtensionFileLoader" in out.stdout:
        pytest.skip(f"not llvmpipe here: {out.stdout.strip()}")
    assert out.stdout.startswith("refused: not importing 'triton.math'")
    assert "bundles its own LLVM" in out.stdout and "vectorization_mode='async'" in out.stdout
