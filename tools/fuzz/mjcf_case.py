"""One MJCF fuzz case: MuJoCo compiles the model, then hypergl_mujoco's BatchRenderer draws
two worlds of it from its first camera and a free one, on the trace device and on real
OpenGL (headless EGL). Used by the fuzz target (mjcf_target.py).

    .venv/bin/python tools/fuzz/mjcf_case.py FILE...   # replay inputs, e.g. a crash-* file

A model MuJoCo refuses (its ValueError) ends the case. Past that, every input must end in
the project's own errors (HyperGLError): a raw exception, a crash or a hang is a finding.
The renderer runs under a memory limit of MEMORY_LIMIT, so a model whose meshes, height
fields or images need more must be refused before anything is made. A height field of
more than MAX_POINTS points is skipped: MuJoCo's own compile allocates its points before
any code of ours runs (a 65535 x 65535 field is 16 GiB of MuJoCo's).
"""

from __future__ import annotations

import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import mujoco

import hypergl
import hypergl_mujoco

MEMORY_LIMIT = 64 << 20
MAX_POINTS = 1 << 24
DEVICES = tuple(os.environ.get("HYPERGL_FUZZ_DEVICES", "trace,gl").split(","))
_CONTEXTS: dict[str, hypergl.Context] = {}


def _mujoco_would_allocate_too_much(text: str) -> bool:
    try:
        root = ET.fromstring(text)
    except (ET.ParseError, ValueError):
        return False  # MuJoCo refuses it itself
    for field in root.iter("hfield"):
        try:
            if int(field.get("nrow", 0)) * int(field.get("ncol", 0)) > MAX_POINTS:
                return True
        except ValueError:
            continue
    return False


def check(data: bytes) -> None:
    text = data.decode("utf-8", "replace")
    if _mujoco_would_allocate_too_much(text):
        return
    try:
        model = mujoco.MjModel.from_xml_string(text)
    except ValueError:  # MuJoCo's own refusal of the model
        return
    for device in DEVICES:
        render(device, model)


def render(device: str, model: mujoco.MjModel) -> None:
    ctx = _CONTEXTS.get(device)
    if ctx is None:
        ctx = _CONTEXTS[device] = hypergl.context(device=device)
    worlds = [mujoco.MjData(model) for _ in range(2)]
    for world in worlds:
        mujoco.mj_forward(model, world)
    free = mujoco.MjvCamera()
    mujoco.mjv_defaultFreeCamera(model, free)
    cameras = [0, free] if model.ncam else [free]
    try:
        with hypergl_mujoco.BatchRenderer(
            model, 2, cameras=cameras, width=8, height=8, context=ctx, memory_limit=MEMORY_LIMIT
        ) as renderer:
            renderer.render(worlds)  # on trace: its checks, then ContextError at the read
    except hypergl.HyperGLError:
        pass
    finally:
        ctx.release("all")
    # A case must leave its context usable (a finding then replays on its own).
    ctx.framebuffer((1, 1), depth=None)
    ctx.release("all")


if __name__ == "__main__":
    for name in sys.argv[1:]:
        check(Path(name).read_bytes())
        print(f"{name}: no finding")
