"""Where a headless gl context comes from: the one place that decides the platform.

The engine's own EGL context first (``ctx.info["platform"] == "egl"``); where EGL cannot
be loaded or gives no context (Windows' desktop drivers, a Linux desktop without EGL), a
hidden GLFW window (``"glfw-hidden-window"``, see hidden_window.py). A device asked for by
``device_index`` is an EGL device: no fallback then.
"""

from __future__ import annotations

from typing import Any

from ._egl import HeadlessHost
from .capabilities import Capabilities
from .errors import ContextError
from .platform_support import no_context_message


def open_headless(device_index: int | None = None) -> Any:
    """A host for a headless context (EGL, else the hidden window); ContextError, saying what
    failed on each path and what to do, when neither gives one."""
    from .devices import egl_device_index
    from .hidden_window import HiddenWindowHost

    index = egl_device_index(device_index)
    try:
        return HeadlessHost(index)
    except ContextError as error:
        egl_error = str(error).rstrip(".")
        if device_index is not None:
            raise ContextError(no_context_message(egl_error)) from error
    try:
        return HiddenWindowHost(egl_error)
    except ContextError as fallback:
        raise ContextError(no_context_message(egl_error, fallback=str(fallback))) from None


def probe_headless(device_index: int | None = None) -> tuple[dict[str, Any], Capabilities]:
    """(the host's info: which platform, ..., the capabilities) of a headless context."""
    host = open_headless(device_index)
    try:
        return host.info(), Capabilities.from_probe(host.probe())
    finally:
        host.close()
