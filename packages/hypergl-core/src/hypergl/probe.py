"""`hypergl.probe()`: what the machine's headless OpenGL can do."""

from __future__ import annotations

from ._egl import HeadlessHost
from .capabilities import Capabilities


def probe(device_index: int | None = None) -> Capabilities:
    """Create a headless EGL context, read its version, renderer, extensions and limits.

    `device_index` is as for `hypergl.context` (see `hypergl.devices()`).
    """
    from .devices import egl_device_index

    host = HeadlessHost(egl_device_index(device_index))
    try:
        return Capabilities.from_probe(host.probe())
    finally:
        host.close()
