"""Core's process safety, with no RL installed: a fork after a context exists fails with an
error that says what to do, never a hang; triton (its own LLVM) is loaded deep-bound beside
llvmpipe instead of crashing the process. Every maker of worker contexts (hypergl_rl's
environments, hypergl_mujoco's renderer) goes through ``hypergl.process_safety.new_context``.

Each case runs in a fresh interpreter: the test process itself has made EGL contexts, so it
is the parent a fork must not come from.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.gl


def run_python(code: str, tmp_path, env: dict | None = None) -> subprocess.CompletedProcess:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=180, cwd=tmp_path, env={**os.environ, **(env or {})})  # fmt: skip


def test_the_errors_are_hypergl_errors_and_the_builtins_a_user_catches():
    import hypergl
    from hypergl.process_safety import ForkedContextError, LLVMConflictError

    assert issubclass(ForkedContextError, hypergl.HyperGLError)
    assert issubclass(ForkedContextError, RuntimeError)
    assert issubclass(LLVMConflictError, hypergl.HyperGLError)
    assert issubclass(LLVMConflictError, ImportError)


def test_a_new_context_in_a_child_forked_after_a_context_raises_instead_of_hanging(tmp_path):
    out = run_python(
        """
        import multiprocessing as mp
        import hypergl
        from hypergl.process_safety import ForkedContextError, new_context

        def child(queue):
            try:
                new_context().close()
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


def test_check_same_process_names_both_processes():
    from hypergl.process_safety import ForkedContextError, check_same_process

    check_same_process(os.getpid(), "this renderer")  # the same process: nothing to say
    with pytest.raises(ForkedContextError, match=r"this renderer was made in process 1 "):
        check_same_process(1, "this renderer")


TRITON = """
import os, sys
from hypergl.process_safety import LLVMConflictError, new_context
{before}
ctx = new_context()
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
    code = TRITON.replace("ctx = new_context()\n", "")
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
