"""Exceptions raised by HyperGL. Each message names the value that was wrong.

`HyperGLError`, the root of them all, and `VerifyError` are hypergl_compiler's: the
lowest distribution holds the root, and the C++ verifier raises the same class as the
Python one, so a program is rejected the same way whichever checked it.
"""

from __future__ import annotations

from hypergl_compiler import HyperGLError, VerifyError


class ContextError(HyperGLError):
    """No OpenGL context could be created, the context is gone, or a callback it runs
    (an external source's ``acquire``) called back into it, which would deadlock."""


class ResourceError(HyperGLError, ValueError):
    """A resource cannot be used as asked: released, foreign, wrong kind or too small."""


class ContextGoneError(ContextError, ResourceError):
    """A resource of a context that is gone (closed, or its window destroyed with GLFW):
    the context's reason, and still the ResourceError a released resource raises (closing
    a context releases its resources)."""


class ResourceTypeError(HyperGLError, TypeError):
    """A resource factory got an argument of the wrong type: data that is not bytes or an
    array, a size that is not an int, formats that are not a sequence of names."""


class VMError(HyperGLError):
    """A verified program failed while running.

    ``index`` and ``mnemonic`` name the instruction; ``reason`` says what went
    wrong (a dynamic bounds check, stack or call depth, division by zero, the
    instruction budget, a device failure).
    """

    def __init__(self, index: int, mnemonic: str, reason: str) -> None:
        self.index = index
        self.mnemonic = mnemonic
        self.reason = reason
        where = f"instruction {index} ({mnemonic})" if index >= 0 else "program"
        super().__init__(f"{where}: {reason}")

    def __reduce__(self) -> tuple[type[VMError], tuple[int, str, str]]:
        return (type(self), (self.index, self.mnemonic, self.reason))


class ShaderError(HyperGLError, ValueError):
    """A shader did not compile or a pipeline did not link; the message holds the log."""


class PlayError(HyperGLError):
    """`hypergl play` cannot play a file as asked (no framebuffer to show, a bad option)."""


class BodyError(HyperGLError, ValueError):
    """The body renderer (:mod:`hypergl.bodies`) cannot take a look, mesh, view or record as
    asked: a library or buffer is full, a mesh is unknown, a view is out of range."""


__all__ = ["BodyError", "ContextError", "HyperGLError", "ResourceError", "ResourceTypeError",
           "ShaderError", "VMError", "VerifyError"]  # fmt: skip
