"""The one place that calls into hypergl._core and translates its exceptions."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from hypergl_compiler import Program, VerifyError

from . import _core
from .errors import ResourceError, VMError


@contextlib.contextmanager
def translated_errors() -> Iterator[None]:
    """Turn the extension's exception types into the public ones."""
    try:
        yield
    except _core.VerifyFailure as exc:
        raise VerifyError(*exc.args) from None
    except _core.VMFailure as exc:
        raise VMError(*exc.args) from None
    except _core.BindingError as exc:
        raise ResourceError(str(exc)) from None


def native_program(program: Program) -> _core.Program:
    """Build and verify the C++ image of `program`; raises VerifyError."""
    if not isinstance(program, Program):
        raise TypeError(f"expected a hypergl_compiler.Program, got {type(program).__name__}")
    constants = [(int(c.kind), c.data) for c in program.constants]
    slots = [(int(r.kind), r.name, int(r.size or 0)) for r in program.resources]
    subroutines = [(s.name, s.entry) for s in program.subroutines]
    with translated_errors():
        return _core.Program(program.code, constants, slots, subroutines)


def verify(program: Program) -> None:
    """Verify `program` with the authoritative C++ verifier; raises VerifyError."""
    native_program(program)
