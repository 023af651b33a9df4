"""One fuzz case: .hgb bytes through the loader, the C++ verifier, and a replay on the
trace device and on real OpenGL (headless EGL), then played as ``hypergl play`` plays a
file (frames with the clock, the seed and the registers carried over, the shown
framebuffer read). Used by the fuzz target (hgb_target.py) and by the tests that replay
committed findings.

    .venv/bin/python tools/fuzz/replay.py FILE...   # replay inputs, e.g. a crash-* file

Every input must end in the project's own exceptions (HGBError, VerifyError,
HyperGLError, and the ValueError / TypeError the API documents, raised by our
code): anything else, a crash, or a hang is a finding. A program that verifies
runs under short budgets (instructions, vertices, compute work groups) and within
MAX_BYTES of resources, on `trace` and then on `gl`, and must leave the context able
to make a resource after it (a finding then replays on its own). Each input is also
loaded as it is and, when that differs, with its size and checksum fields made
right.
"""

from __future__ import annotations

import os
import struct
import sys
import zlib
from pathlib import Path

import hypergl
from hypergl.play import shown_framebuffer
from hypergl_compiler import hgb
from hypergl_compiler.errors import CompileError, HGBError

MAX_BYTES = 16 << 20
BUDGET = 100_000
VERTEX_BUDGET = 1 << 20
# A dispatch of 7 x 31 x 65535 groups of an empty shader (within the product's default
# 2**26) took 4 s and, under ASan, 12 GB of RSS on llvmpipe: past libFuzzer's limit.
GROUP_BUDGET = 1 << 18
EXPECTED = (HGBError, CompileError, hypergl.VerifyError, hypergl.HyperGLError)
# HYPERGL_FUZZ_DEVICES=trace leaves out OpenGL (a machine without EGL).
DEVICES = tuple(os.environ.get("HYPERGL_FUZZ_DEVICES", "trace,gl").split(","))
_CONTEXTS: dict[str, hypergl.Context] = {}


def fix_header(body: bytearray) -> None:
    """Make the size field and the checksum agree with `body` (a header is 32 bytes)."""
    if len(body) < 32:
        return
    struct.pack_into("<I", body, 16, len(body))
    crc = zlib.crc32(memoryview(body)[28:], zlib.crc32(memoryview(body)[:24]))
    struct.pack_into("<I", body, 24, crc)


def check(data: bytes) -> None:
    fixed = bytearray(data)
    fix_header(fixed)
    load(data)
    if fixed != data:
        load(bytes(fixed))


def load(body: bytes) -> None:
    try:
        hypergl.verify(hgb.loads(body, memory_limit=MAX_BYTES))
    except EXPECTED:
        return
    for device in DEVICES:
        replay(device, body)
        play(device, body)


def replay(device: str, body: bytes) -> None:
    ctx = _CONTEXTS.get(device)
    if ctx is None:
        ctx = _CONTEXTS[device] = hypergl.context(device=device)
    try:
        scene = ctx.load(body, memory_limit=MAX_BYTES)
        scene.submit(budget=BUDGET, vertex_budget=VERTEX_BUDGET, group_budget=GROUP_BUDGET)
    except EXPECTED:
        pass
    except (ValueError, TypeError) as exc:
        if "incompatible function arguments" in str(exc) or "Invoked with" in str(exc):
            raise  # a raw binding error leaked out: a finding
    finally:
        ctx.release("all")
        if device == "trace":  # its log, not copied into Python first (ctx.trace.clear())
            ctx._native.clear_trace()
    # A case must leave its context usable: state it leaks (a GL error left pending)
    # would otherwise fail a later case, and the finding would not replay on its own.
    ctx.framebuffer((1, 1), depth=None)
    ctx.release("all")


def play(device: str, body: bytes, frames: int = 3) -> None:
    """`frames` frames as ``hypergl play`` runs them: the VM's clock at 1/30 s a frame, the
    seed at the first, the registers kept, the one framebuffer read after each (on gl)."""
    ctx = _CONTEXTS[device]
    try:
        scene = ctx.load(body, memory_limit=MAX_BYTES)
        target = scene.objects[shown_framebuffer(scene.program.resources, None).name]
        for index in range(frames):
            scene.submit(budget=BUDGET, vertex_budget=VERTEX_BUDGET, group_budget=GROUP_BUDGET,
                         clock=index / 30,
                         seed=0 if index == 0 else None, keep_registers=True,
                         debug_sink=_discard)  # fmt: skip
            if device == "gl":
                target.read()
    except EXPECTED:
        pass
    except (ValueError, TypeError) as exc:
        if "incompatible function arguments" in str(exc) or "Invoked with" in str(exc):
            raise
    finally:
        ctx.release("all")
        if device == "trace":
            ctx._native.clear_trace()
    ctx.framebuffer((1, 1), depth=None)
    ctx.release("all")


def _discard(text: str) -> None:
    """The debug sink of a played case: print and dump write, nothing keeps it."""


if __name__ == "__main__":
    for name in sys.argv[1:]:
        check(Path(name).read_bytes())
        print(f"{name}: no finding")
