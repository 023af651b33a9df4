"""Fuzz target: .hgb bytes through the loader, the C++ verifier and a trace replay.

    python3 tools/dev.py fuzz --seconds 60           # or, with libFuzzer's options:
    .venv/bin/python tools/fuzz/hgb_target.py build/fuzz/corpus tools/fuzz/corpus -runs=1000

Coverage-guided by atheris (libFuzzer for Python). Each input is loaded as it is
and, when that differs, with its size and checksum fields made right, so that
mutations reach the sections behind the checksum. Every input must
end in the project's own exceptions (HGBError, VerifyError, HyperGLError, and the
ValueError / TypeError the API documents, raised by our code): anything else, or a
crash, is a finding. Declared resources are capped at MAX_BYTES before loading,
until `ctx.load` takes a memory limit itself (issue 17, item 2).
"""

from __future__ import annotations

import struct
import sys
import zlib

import atheris

with atheris.instrument_imports():
    import hypergl
    from hypergl_compiler import hgb
    from hypergl_compiler.errors import CompileError, HGBError

MAX_BYTES = 64 << 20
BUDGET = 100_000
EXPECTED = (HGBError, CompileError, hypergl.VerifyError, hypergl.HyperGLError)
_CTX = None


def fix_header(body: bytearray) -> None:
    """Make the size field and the checksum agree with `body` (a header is 32 bytes)."""
    if len(body) < 32:
        return
    struct.pack_into("<I", body, 16, len(body))
    crc = zlib.crc32(memoryview(body)[28:], zlib.crc32(memoryview(body)[:24]))
    struct.pack_into("<I", body, 24, crc)


def declared_bytes(program) -> int:
    """A generous bound on what the described resources allocate."""

    def number(desc, key: str) -> int:
        value = desc.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1

    total = 0
    for resource in program.resources:
        desc = resource.desc
        total += number(desc, "size") + number(desc, "width") * number(desc, "height") * 16 * (
            number(desc, "layers") * number(desc, "depth") * number(desc, "components")
        )
    return total


def check(data: bytes) -> None:
    fixed = bytearray(data)
    fix_header(fixed)
    load(data)
    if fixed != data:
        load(bytes(fixed))


def load(body: bytes) -> None:
    global _CTX
    try:
        program = hgb.loads(body)
    except EXPECTED:
        return
    try:
        hypergl.verify(program)
    except EXPECTED:
        return
    if declared_bytes(program) > MAX_BYTES:
        return
    if _CTX is None:
        _CTX = hypergl.context(device="trace")
    try:
        scene = _CTX.load(body)
        scene.submit(budget=BUDGET)
    except EXPECTED:
        pass
    except (ValueError, TypeError) as exc:
        if "incompatible function arguments" in str(exc) or "Invoked with" in str(exc):
            raise  # a raw binding error leaked out: a finding
    finally:
        _CTX.release("all")
        _CTX.trace.clear()


def main() -> None:
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
