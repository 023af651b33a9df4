"""The window side of a context: ``ctx.screen``, ``swap()``, ``poll()``, ``should_close``.

A mixin of :class:`~.context.Context`, apart because only window contexts
(``hypergl.context(window=(w, h))``) use it.
"""

from __future__ import annotations

from typing import Any

from .errors import ContextError
from .resources import Framebuffer


class WindowControls:
    """What a context with a window adds (headless contexts raise ContextError)."""

    @property
    def screen(self) -> Framebuffer:
        """The window's own framebuffer (window contexts only)."""
        self._link.enter()  # closed (or its window destroyed): says so
        if not hasattr(self._host, "framebuffer_size"):
            raise ContextError("ctx.screen needs a window: hypergl.context(window=(w, h))")
        if self._screen is None or self._screen.released:
            width, height = self._host.framebuffer_size()
            self._screen = self._factory.make(
                Framebuffer,
                "screen",
                {"width": width, "height": height, "color": ["rgba8"], "depth": "depth24"},
                lambda n: self._native.gl_default_framebuffer(n, width, height),
            )
        return self._screen

    def _window(self) -> Any:
        if self._closed:
            raise ContextError(self._link.closed_reason)
        if not hasattr(self._host, "swap"):
            raise ContextError("this context has no window: hypergl.context(window=(w, h))")
        return self._host

    def swap(self) -> None:
        """Show the frame rendered into ``ctx.screen``.

        The GPU's work on the frame is waited for first, in slices that Ctrl+C ends: the
        swap itself would wait for it inside the driver, where no signal can stop it."""
        window = self._window()
        self._link.finish()
        window.swap()

    def poll(self) -> None:
        """Process window events (resizes update ``ctx.screen``)."""
        window = self._window()
        window.poll()
        if self._screen is not None and not self._screen.released:
            self._screen._native.resize(*window.framebuffer_size())

    @property
    def should_close(self) -> bool:
        return self._window().should_close

    def close_on_escape(self) -> None:
        """From now on, pressing Escape in the window sets ``should_close`` (as its close
        button does)."""
        self._window().close_on_escape()
