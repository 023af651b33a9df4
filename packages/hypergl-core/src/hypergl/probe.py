"""`hypergl.probe()`: what the machine's headless OpenGL can do."""

from __future__ import annotations

from . import _core
from ._egl import create_headless_context, release_headless_context
from .capabilities import Capabilities


def probe() -> Capabilities:
    """Create a headless EGL context, read its version, renderer, extensions and limits."""
    context = create_headless_context()
    try:
        return Capabilities.from_probe(_core.probe(context.load_opengl_function))
    finally:
        release_headless_context(context)
