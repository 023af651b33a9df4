"""What a process may do around the OpenGL contexts of hypergl.rl: fork, load a second LLVM.

Two ways a Mesa llvmpipe context takes a process down, each turned into an error
that says what to do:

* **fork after a context exists.** llvmpipe renders with threads of its own; a
  forked child inherits the context's memory but not its threads, so the
  child's first render (or its first new context, which shares the parent's
  EGL display) waits forever. Environments therefore make their context lazily,
  at the first ``reset()``/``step()`` (``gym.make`` and gymnasium's
  AsyncVectorEnv, which makes one throwaway env in the parent before forking,
  never create one), and a context made here refuses to be used in a child
  (:class:`ForkedContextError`) instead of hanging.
* **triton after llvmpipe.** triton (which torch loads for ``torch.compile``)
  carries its own LLVM; loading it into a process whose llvmpipe already holds
  Mesa's LLVM aborted the process. Once a context here runs on llvmpipe, an
  ``import triton`` raises :class:`LLVMConflictError` (an ImportError, so torch
  treats triton as absent and carries on without it). Render in worker
  processes (``AsyncVectorEnv``, Ray) to use triton in the learner, or set
  ``HYPERGL_ALLOW_TRITON=1`` to load it anyway.
"""

from __future__ import annotations

import importlib.abc
import os
import sys
import threading
from typing import Any

from ..errors import HyperGLError

ALLOW_TRITON = "HYPERGL_ALLOW_TRITON"
LLVM_MODULES = ("triton",)  # top-level packages that bundle an LLVM of their own


class ForkedContextError(HyperGLError, RuntimeError):
    """An OpenGL context (or the process's EGL display) used in a forked child."""


class LLVMConflictError(HyperGLError, ImportError):
    """A package with its own LLVM imported into a process with an llvmpipe context."""


_lock = threading.Lock()
# glcontext loads its EGL backend with the process's first headless context (HyperGL's
# or moderngl's): from then on the EGL display and Mesa's threads belong to this process,
# and a child forked from it hangs on its first context, even once every context is closed.
EGL_MODULE = "glcontext.egl"
_inherited_egl = False  # set in a child forked after its parent made an EGL context


def _after_fork_in_child() -> None:
    global _inherited_egl
    if EGL_MODULE in sys.modules:
        _inherited_egl = True


os.register_at_fork(after_in_child=_after_fork_in_child)

FORK_ADVICE = (
    "start the worker processes with the 'spawn' or 'forkserver' method "
    "(multiprocessing.get_context('spawn'), AsyncVectorEnv(..., context='spawn')), or fork "
    "before the first reset(): environments make their context lazily"
)


def new_context(device_index: int | None = None) -> Any:
    """A headless context for an environment, after checking that this process may make one."""
    import hypergl

    if _inherited_egl:
        raise ForkedContextError(
            f"process {os.getpid()} was forked from a process that had already made an EGL "
            f"OpenGL context, and a new context here would hang; {FORK_ADVICE}"
        )
    ctx = hypergl.context() if device_index is None else hypergl.context(device_index=device_index)
    if _is_llvmpipe(ctx):
        guard_llvm_imports()
    return ctx


def check_same_process(owner_pid: int, what: str) -> None:
    """ForkedContextError if `what`, made in process `owner_pid`, is used in another one."""
    if owner_pid != os.getpid():
        raise ForkedContextError(
            f"{what} was made in process {owner_pid} and cannot be used in the forked process "
            f"{os.getpid()} (its OpenGL context's threads stayed in the parent); make the "
            f"environment in the child instead: {FORK_ADVICE}"
        )


def _is_llvmpipe(ctx: Any) -> bool:
    caps = getattr(ctx, "capabilities", None)
    text = " ".join(str(getattr(caps, name, "")) for name in ("renderer", "vendor", "version"))
    return "llvmpipe" in text.lower()


class _LLVMImportGuard(importlib.abc.MetaPathFinder):
    """Refuses to load a second LLVM (triton) while an llvmpipe context is in the process."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname not in LLVM_MODULES or os.environ.get(ALLOW_TRITON) == "1":
            return None
        raise LLVMConflictError(
            f"not importing {fullname!r}: it bundles its own LLVM, and this process already runs "
            f"Mesa llvmpipe (OpenGL in software, built on another LLVM); the two in one process "
            f"abort it. Render in worker processes (gymnasium.make_vec(..., "
            f"vectorization_mode='async', vector_kwargs={{'context': 'spawn'}}) or "
            f"hypergl.rl.RayVectorEnv) and keep {fullname} in the learner, or import "
            f"{fullname} before the first environment reset, or set {ALLOW_TRITON}=1 to try anyway",
            name=fullname,
        )


_guard = _LLVMImportGuard()


def guard_llvm_imports() -> None:
    """Install the import guard (idempotent) unless a guarded package is already loaded."""
    with _lock:
        if _guard in sys.meta_path:
            return
        if any(name in sys.modules for name in LLVM_MODULES):
            return  # loaded before the context: the order that works
        sys.meta_path.insert(0, _guard)
