"""Processes and the environments' llvmpipe contexts: AsyncVectorEnv under fork, spawn and
forkserver; an environment in a child forked after a context exists fails with an error that
says what to do, never a hang. (The mechanism itself, triton's deep binding included, is
core's hypergl.process_safety, tested in hypergl-core's test_process_safety.py.)

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

import hypergl_rl  # noqa: E402,F401  (registers the ids)
from hypergl_rl import REACH_ID  # noqa: E402

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
        import hypergl_rl

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
        from hypergl_rl import ReachVectorEnv, ForkedContextError

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
        from hypergl_rl import ReachVectorEnv, ForkedContextError
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
