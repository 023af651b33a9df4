"""The one place that calls into hypergl._core and translates its exceptions."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from hypergl_compiler import Program, Resource, VerifyError
from hypergl_compiler.isa import ResourceKind

from . import _core
from .errors import ResourceError, VMError

# The extension's exception types, and what each becomes in the public API. Any other
# failure of the engine (std::runtime_error: a GL error such as GL_OUT_OF_MEMORY from a
# texture or framebuffer the driver cannot allocate, a read the driver refuses) reaches
# Python as RuntimeError: a ResourceError too, never a foreign error.
NATIVE_ERRORS = (_core.VerifyFailure, _core.VMFailure, _core.BindingError, RuntimeError)


def translate(exc: BaseException, doing: str = "") -> Exception:
    """The public exception for one of NATIVE_ERRORS; `doing` ("making texture 't'")
    says what failed where the engine's message does not."""
    if isinstance(exc, _core.VerifyFailure):
        return VerifyError(*exc.args)
    if isinstance(exc, _core.VMFailure):
        return VMError(*exc.args)
    return ResourceError(f"{doing}: {exc}" if doing else str(exc))


@contextlib.contextmanager
def translated_errors(doing: str = "") -> Iterator[None]:
    """Turn the extension's exception types into the public ones."""
    try:
        yield
    except NATIVE_ERRORS as exc:
        raise translate(exc, doing) from None


def native_program(program: Program) -> _core.Program:
    """Build and verify the C++ image of `program`; raises VerifyError."""
    if not isinstance(program, Program):
        raise TypeError(f"expected a hypergl_compiler.Program, got {type(program).__name__}")
    constants = [(int(c.kind), c.data) for c in program.constants]
    slots = [(int(r.kind), r.name, _declared_size(r)) for r in program.resources]
    subroutines = [(s.name, s.entry) for s in program.subroutines]
    with translated_errors():
        return _core.Program(program.code, constants, slots, subroutines)


def _declared_size(resource: Resource) -> int:
    """The byte size the verifier bounds static offsets by: a buffer's, 0 for other kinds
    (a size in their description means nothing and is ignored)."""
    size = resource.size if resource.kind is ResourceKind.BUFFER else None
    if size is None:
        return 0
    if not 0 <= size < 1 << 64:
        raise ResourceError(f"buffer '{resource.name}' declares a size of {size} bytes")
    return size


def verify(program: Program) -> None:
    """Verify `program` with the authoritative C++ verifier; raises VerifyError."""
    native_program(program)
