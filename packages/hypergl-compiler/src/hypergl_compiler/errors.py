"""The exceptions of hypergl-compiler, and the root of every HyperGL exception.

:class:`HyperGLError` lives here, in the lowest distribution, so that every exception
any HyperGL distribution raises on purpose derives from one class (hypergl-core
re-exports it as ``hypergl.HyperGLError``), and a command line catches that one class
to print one line instead of a traceback.

The compiler's own exceptions also derive from ValueError: each one means "this input
is wrong", and callers that do not care which stage rejected it can catch ValueError. hypergl-core's
C++ verifier raises the same :class:`VerifyError` so that tests and users see
one error type whichever verifier ran, and its context raises the same
:class:`ArgumentError` as a command buffer for the same bad argument.
"""

from __future__ import annotations

from .isa import VerifyCode


class HyperGLError(Exception):
    """Base class of every error HyperGL raises on purpose."""


class ArgumentError(HyperGLError, ValueError):
    """A value given to a function is wrong in itself (a size that is not two positive
    ints, ...), whichever object it was given to; the message names it."""


class CompileError(HyperGLError, ValueError):
    """A recording (or assembly) mistake; the message names the bad value."""


class VerifyError(HyperGLError, ValueError):
    """A program breaks a static rule of the ISA.

    ``index`` is the instruction index (-1 for whole-program checks), ``mnemonic``
    the op's name (``"?"`` for an unknown opcode, ``""`` for the code length),
    ``reason`` says what is wrong and ``code`` (an :class:`~.isa.VerifyCode`)
    names the rule, the same whichever verifier (Python or C++) ran.
    """

    def __init__(self, index: int, mnemonic: str, reason: str, code: str | None = None) -> None:
        self.index = index
        self.mnemonic = mnemonic
        self.reason = reason
        self.code: VerifyCode | None = None if code is None else VerifyCode(code)
        if index < 0:
            where = f"program ({mnemonic})" if mnemonic else "program"
        else:
            where = f"instruction {index} ({mnemonic})"
        super().__init__(f"{where}: {reason}")

    # keep the attributes through pickling (multiprocessing)
    def __reduce__(self) -> tuple[type[VerifyError], tuple[int, str, str, str | None]]:
        code = None if self.code is None else self.code.value
        return (type(self), (self.index, self.mnemonic, self.reason, code))


class HGBError(HyperGLError, ValueError):
    """A malformed .hgb file; ``offset`` is the byte offset of the bad field."""

    def __init__(self, reason: str, offset: int) -> None:
        self.reason = reason
        self.offset = offset
        super().__init__(f"at byte {offset}: {reason}")

    def __reduce__(self) -> tuple[type[HGBError], tuple[str, int]]:
        return (type(self), (self.reason, self.offset))
