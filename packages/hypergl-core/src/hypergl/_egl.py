"""Headless OpenGL through the engine's own EGL context (libEGL loaded at run time).

No Python GL library is imported on the way, so a free-threaded interpreter
keeps the GIL off. The engine makes the context current on whichever thread
calls into it, inside the context's lock, and lets go after the call.
"""

from __future__ import annotations

from typing import Any

from . import _core

# Whether this process has initialised an EGL display: from then on the display and the
# driver's threads belong to it, and a child forked from it hangs on its first context
# (hypergl.process_safety refuses that with ForkedContextError instead).
display_initialised = False


def initialise_display() -> None:
    """Note, before the engine touches EGL, that this process now owns an EGL display."""
    global display_initialised
    display_initialised = True


class HeadlessHost:
    """A headless EGL context made by the engine; `device_index` picks an EGL device."""

    platform = "egl"

    def __init__(self, device_index: int | None = None) -> None:
        initialise_display()
        self.egl = _core.EGLContext(device_index)  # raises ContextError

    @property
    def engine_context(self) -> Any:
        """The context the engine makes current itself (see Context)."""
        return self.egl

    def make_current(self) -> None:
        """Nothing to do: every engine call makes the context current on its own thread."""

    def info(self) -> dict[str, Any]:
        return {"platform": self.platform, "egl_platform": self.egl.platform,
                "egl_device_index": self.egl.device_index}  # fmt: skip

    def load(self, name: str) -> int:
        return self.egl.proc_address(name)

    def probe(self) -> dict[str, Any]:
        return self.egl.probe()

    def close(self) -> None:
        self.egl.destroy()

    def __del__(self) -> None:
        # The last mapped array is gone (see Context.close): the context can go now. No
        # module global here: at interpreter shutdown they may already be None.
        try:  # noqa: SIM105 - contextlib may be gone by then
            self.close()
        except Exception:
            pass
