"""Every GLSL builder in the project's distributions takes its ``#version`` line and its
camera block from hypergl.shader_prelude: a source scan fails on any other spelling."""

from __future__ import annotations

import re
from pathlib import Path

PACKAGES = Path(__file__).resolve().parents[2] / "packages"
PRELUDE = PACKAGES / "hypergl-core/src/hypergl/shader_prelude.py"


def builders() -> list[Path]:
    """The source files of every distribution that builds GLSL for hypergl: all but
    py-gpu, which depends on nothing (its moderngl backend speaks GLSL 3.30 of its own)."""
    return [path for path in sorted(PACKAGES.glob("*/src/**/*.py"))
            if path != PRELUDE and path.parts[len(PACKAGES.parts)] != "py-gpu"]  # fmt: skip


def test_no_glsl_builder_writes_its_own_version_line():
    spelled = re.compile(r"#\s*version\s+\d")
    found = [str(path.relative_to(PACKAGES)) for path in builders()
             if spelled.search(path.read_text(encoding="utf-8"))]  # fmt: skip
    assert found == [], f"take the #version line from hypergl.shader_prelude.VERSION: {found}"


def test_no_builder_declares_a_camera_block_of_its_own():
    block = re.compile(r"uniform\s+\w*Camera\s*\{")
    found = [str(path.relative_to(PACKAGES)) for path in builders()
             if block.search(path.read_text(encoding="utf-8"))]  # fmt: skip
    assert found == [], f"declare cameras with hypergl.shader_prelude.camera_block: {found}"
