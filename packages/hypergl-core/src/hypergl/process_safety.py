"""What a process may do around HyperGL's OpenGL contexts: fork, load a second LLVM.

Part of core's platform layer, beside the EGL host (``_egl``): every caller that makes a
context for a worker (hypergl_rl's environments, hypergl_mujoco's renderer) makes it
through :func:`new_context`.

Two ways a Mesa llvmpipe context took a process down: the first now raises an
error that says what to do, the second is avoided:

* **fork after a context exists.** llvmpipe renders with threads of its own; a
  forked child inherits the context's memory but not its threads, so the
  child's first render (or its first new context, which shares the parent's
  EGL display) waits forever. Environments therefore make their context lazily,
  at the first ``reset()``/``step()`` (``gym.make`` and gymnasium's
  AsyncVectorEnv, which makes one throwaway env in the parent before forking,
  never create one), and a context made here refuses to be used in a child
  (:class:`ForkedContextError`) instead of hanging.
* **triton after llvmpipe.** triton (which torch brings, and which torch 2.14 looks
  up on import) carries its own LLVM, linked into ``triton/_C/libtriton.so``; loaded
  into a process whose llvmpipe already holds Mesa's LLVM, its LLVM symbols bind to
  Mesa's copy and the process dies (SIGSEGV, seen with triton 3.8 and Mesa's LLVM 15).
  Once a context here runs on llvmpipe, triton's extension modules are loaded with
  ``RTLD_DEEPBIND``, so they bind to their own LLVM first: both then work in one
  process. Where the platform has no ``RTLD_DEEPBIND``, importing triton raises
  :class:`LLVMConflictError` (an ImportError) saying what to do instead.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
import threading
from typing import Any

from . import _egl
from .context import Context, context
from .errors import HyperGLError

LLVM_MODULES = ("triton",)  # top-level packages that bundle an LLVM of their own


class ForkedContextError(HyperGLError, RuntimeError):
    """An OpenGL context (or the process's EGL display) used in a forked child."""


class LLVMConflictError(HyperGLError, ImportError):
    """A package with its own LLVM imported beside llvmpipe where it cannot be deep-bound."""


_lock = threading.Lock()
# Once a process has made a headless EGL context (HyperGL's own, or moderngl's through
# glcontext), the EGL display and Mesa's threads belong to it, and a child forked from it
# hangs on its first context, even once every context is closed.
EGL_MODULE = "glcontext.egl"
_inherited_egl = False  # set in a child forked after its parent made an EGL context


def _after_fork_in_child() -> None:
    global _inherited_egl
    if _egl.display_initialised or EGL_MODULE in sys.modules:
        _inherited_egl = True


os.register_at_fork(after_in_child=_after_fork_in_child)

FORK_ADVICE = (
    "start the worker processes with the 'spawn' or 'forkserver' method "
    "(multiprocessing.get_context('spawn'), AsyncVectorEnv(..., context='spawn')), or fork "
    "before the first reset(): environments make their context lazily"
)


def new_context(device_index: int | None = None) -> Context:
    """A headless context for an environment, after checking that this process may make one."""
    if _inherited_egl:
        raise ForkedContextError(
            f"process {os.getpid()} was forked from a process that had already made an EGL "
            f"OpenGL context, and a new context here would hang; {FORK_ADVICE}"
        )
    ctx = context() if device_index is None else context(device_index=device_index)
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


class _DeepBindLoader(importlib.abc.Loader):
    """An extension module loader that dlopens with RTLD_DEEPBIND: own symbols first."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: Any) -> Any:
        with _lock:  # dlopen flags are process-wide: set them only around this load
            flags = sys.getdlopenflags()
            sys.setdlopenflags(flags | os.RTLD_DEEPBIND)
            try:
                return self.loader.create_module(spec)
            finally:
                sys.setdlopenflags(flags)

    def exec_module(self, module: Any) -> None:
        self.loader.exec_module(module)


class _LLVMImportGuard(importlib.abc.MetaPathFinder):
    """Loads the extension modules of packages with their own LLVM (triton) deep-bound."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname.split(".")[0] not in LLVM_MODULES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            return None  # pure Python: nothing to bind, the usual finders take it
        if not hasattr(os, "RTLD_DEEPBIND"):
            raise LLVMConflictError(
                f"not importing {fullname!r}: it bundles its own LLVM, and this process already "
                f"runs Mesa llvmpipe (OpenGL in software, built on another LLVM); without "
                f"RTLD_DEEPBIND the two in one process crash it. Render in worker processes "
                f"(gymnasium.make_vec(..., vectorization_mode='async', vector_kwargs="
                f"{{'context': 'spawn'}}) or hypergl_rl.RayVectorEnv) and keep "
                f"{fullname.split('.')[0]} in the learner, or import it before the first "
                f"environment reset",
                name=fullname,
            )
        spec.loader = _DeepBindLoader(spec.loader)
        return spec


_guard = _LLVMImportGuard()


def guard_llvm_imports() -> None:
    """Install the import guard (idempotent); harmless when nothing guarded is imported."""
    with _lock:
        if _guard not in sys.meta_path:
            sys.meta_path.insert(0, _guard)
