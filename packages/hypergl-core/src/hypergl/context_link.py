"""`ContextLink`: what resources, readers and replays need of their context.

One per context, made by it and handed to everything it creates. It is the only
way those objects reach the engine's context object and the GL host, so the
context's own class keeps its internals to itself. It owns the handle table (every
live resource, by its engine object) and release: a resource releases itself here,
never through the facade above.
"""

from __future__ import annotations

from typing import Any

from .errors import ContextError, ContextGoneError
from .vm_state import VMState

U64_MAX = (1 << 64) - 1


class ContextLink:
    """The engine's context object, the GL host (None off GL), "make current", and the
    handles of the live resources."""

    __slots__ = ("closed", "closed_reason", "context", "device", "handles", "host", "native", "vm")
    # The Context facade that made this link: only handed back (``resource.context``),
    # never called from below, so it is typed Any and not imported (context.py stands above).
    context: Any
    handles: dict[int, Any]  # id(engine object) -> its GPUResource
    device: str
    host: Any  # the GL host (window or headless), None off GL
    native: Any
    closed: bool
    closed_reason: str  # what a call on the closed context raises
    vm: VMState

    def __init__(self, context: Any, device: str, host: Any) -> None:
        self.context = context
        self.handles = {}
        self.device = device
        self.host = host
        self.native: Any = None  # the engine's context, set once it exists
        self.closed = False
        self.closed_reason = "this context has been closed"
        self.vm = VMState(wall_clock=host is not None)  # the clock and generator of get_time...

    @property
    def gl(self) -> bool:
        """True on the gl device (while the context is open)."""
        return self.host is not None

    def enter(self) -> None:
        """Check the context is open and, for a window, make it current on this thread.

        Always re-bound (about 0.3 us): another library's context (moderngl)
        may have been made current in between. The headless contexts (EGL, the
        hidden-window fallback) need nothing here: the engine makes them current
        inside each call, on the calling thread, under the context's lock.
        """
        if self.closed:
            raise ContextGoneError(self.closed_reason)
        host = self.host  # read once: a racing close sets it None (the engine's call then says so)
        if host is not None:
            host.make_current()

    def current(self, action: Any) -> Any:
        """`action()`'s result, run under the engine's lock with the GL context current on
        this thread: a window's own calls (swap, events, its size), never beside another
        thread's call nor on a window that a racing close destroyed (ContextError then)."""
        self.enter()
        try:
            return self.native.call_current(action)
        except ContextError:
            if self.closed:  # closed on the way in: say why, as every later call does
                raise ContextGoneError(self.closed_reason) from None
            raise

    # --- the handle table ------------------------------------------------------------
    def track(self, resource: Any) -> Any:
        """Note a new resource as live; returns it."""
        self.handles[id(resource._native)] = resource
        return resource

    def release(self, resource: Any) -> None:
        """Free one resource of this context (already checked to be one)."""
        self.enter()
        self.native.release(resource._native)
        self.handles.pop(id(resource._native), None)

    def release_all(self) -> None:
        """Free every live resource."""
        self.enter()
        self.native.release_all()
        self.handles.clear()

    def live_objects(self) -> list[Any]:
        """Every live resource, oldest first (the engine's order)."""
        # One another thread is creating right now is in the engine before it has a handle.
        found = (self.handles.get(id(native)) for native in self.native.live_objects())
        return [handle for handle in found if handle is not None]

    def need_gl(self, what: str) -> None:
        if self.closed:
            raise ContextGoneError(self.closed_reason)
        if self.host is None:
            raise ContextError(f"{what} needs the gl device, this context is '{self.device}'")

    def finish(self) -> None:
        """Wait until the GPU has done everything submitted."""
        self.enter()
        if self.host is not None:
            self.native.finish()

    def flush(self) -> None:
        """Start the GPU on everything submitted, without waiting."""
        self.enter()
        if self.host is not None:
            self.native.flush()

    def fence_wait(self, fence: Any, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the engine's `fence`; True when it has passed."""
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout >= 0:
            raise ValueError(f"timeout must be a non-negative number of seconds, got {timeout!r}")
        if self.host is None:
            return True
        self.enter()
        nanoseconds = timeout * 1e9  # inf and beyond: wait for as long as it takes
        wait_ns = U64_MAX if nanoseconds >= U64_MAX else int(nanoseconds)
        return self.native.fence_wait(fence, wait_ns)
