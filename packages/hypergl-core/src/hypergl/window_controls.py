"""The window side of a context: ``ctx.screen``, ``swap()``, ``poll()``, ``should_close``.

A mixin of :class:`~.context.Context`, apart because only window contexts
(``hypergl.context(window=(w, h))``) use it. Every call on the window runs inside the
engine's entry (``ContextLink.current``): under the context's lock, so one thread at a time
beside every other call on the context, and on a window that a racing close cannot destroy
half-way (the close waits; a call after it raises ContextError).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from .errors import ContextError
from .resources import Framebuffer

T = TypeVar("T")


class WindowControls:
    """What a context with a window adds (headless contexts raise ContextError)."""

    @property
    def screen(self) -> Framebuffer:
        """The window's own framebuffer (window contexts only)."""
        self._link.enter()  # closed (or its window destroyed): says so
        if not hasattr(self._host, "framebuffer_size"):
            raise ContextError("ctx.screen needs a window: hypergl.context(window=(w, h))")
        if self._screen is None or self._screen.released:
            width, height = self._on_window(lambda window: window.framebuffer_size())
            self._screen = self._factory.make(
                Framebuffer,
                "screen",
                {"width": width, "height": height, "color": ["rgba8"], "depth": "depth24"},
                lambda n: self._native.gl_default_framebuffer(n, width, height),
            )
        return self._screen

    def _window(self) -> Any:
        host = self._host  # read first: a close marks itself closed before it drops the host
        if self._closed:
            raise ContextError(self._link.closed_reason)
        if not hasattr(host, "swap"):
            raise ContextError("this context has no window: hypergl.context(window=(w, h))")
        return host

    def _on_window(self, action: Callable[[Any], T]) -> T:
        """`action(window)` inside the engine's entry (see the module's note)."""
        window = self._window()
        return self._link.current(lambda: action(window))

    def swap(self) -> None:
        """Show the frame rendered into ``ctx.screen``.

        The GPU's work on the frame is waited for first, in slices that Ctrl+C ends: the
        swap itself would wait for it inside the driver, where no signal can stop it."""
        self._window()
        self._link.finish()
        self._on_window(lambda window: window.swap())

    def poll(self) -> None:
        """Process window events (resizes update ``ctx.screen``)."""

        def events(window: Any) -> None:
            window.poll()
            screen = self._screen
            if screen is not None and not screen.released:
                screen._native.resize(*window.framebuffer_size())

        self._on_window(events)

    @property
    def should_close(self) -> bool:
        return self._on_window(lambda window: window.should_close)

    def close_on_escape(self) -> None:
        """From now on, pressing Escape in the window sets ``should_close`` (as its close
        button does)."""
        self._on_window(lambda window: window.close_on_escape())
