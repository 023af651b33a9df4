"""`hypergl.probe()`: what the machine's headless OpenGL can do."""

from __future__ import annotations

from .capabilities import Capabilities


def probe(device_index: int | None = None) -> Capabilities:
    """Create a headless context (EGL, else the hidden-window fallback), read its version,
    renderer, extensions and limits.

    `device_index` is as for `hypergl.context` (see `hypergl.devices()`).
    """
    from .headless import probe_headless

    return probe_headless(device_index)[1]
