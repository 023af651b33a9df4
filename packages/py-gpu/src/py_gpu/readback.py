"""Frames requested without waiting: :class:`PendingFrame` and :func:`stream`.

A GPU backend with ``render_async`` starts a frame (draw plus a copy into a staging buffer of
a small ring) and returns at once; ``result()`` waits for that frame only.  So the CPU prepares
and submits frame k+1 while the GPU draws frame k and copies it out::

    pending = backend.render_async(batch, 640, 360)
    ...                                   # other work, or the next frame's submission
    frame = pending.result()              # a FrameBuffer

:func:`stream` does this for a sequence of batches with ``in_flight`` frames outstanding
(every backend works: one without ``render_async`` renders synchronously).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .buffers import ColorLike, FrameBuffer
from .errors import InvalidSizeError


class PendingFrame:
    """A frame on its way back from the GPU.  ``result()`` waits for it (once) and returns it."""

    __slots__ = ("_finish", "_frame")

    def __init__(self, finish: Callable[[], FrameBuffer]) -> None:
        self._finish: Callable[[], FrameBuffer] | None = finish
        self._frame: FrameBuffer | None = None

    @classmethod
    def ready(cls, frame: FrameBuffer) -> PendingFrame:
        pending = cls(lambda: frame)
        pending.result()
        return pending

    def done(self) -> bool:
        """True once ``result()`` has been computed (it never blocks)."""
        return self._finish is None

    def result(self) -> FrameBuffer:
        if self._finish is not None:
            finish, self._finish = self._finish, None
            self._frame = finish()
        return self._frame  # type: ignore[return-value]


class Ring:
    """``size`` reusable slots (staging buffers, readback frames) for frames in flight.

    ``claim()`` gives the next slot index, first finishing the frame still using it, so a
    caller that keeps more frames pending than the ring holds still gets every frame right.
    """

    def __init__(self, size: int) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= 16:
            raise InvalidSizeError(f"frames in flight must be an int in 1..16, got {size!r}")
        self.size = size
        self._next = 0
        self._users: list[PendingFrame | None] = [None] * size

    def claim(self) -> int:
        slot = self._next
        self._next = (slot + 1) % self.size
        user = self._users[slot]
        if user is not None:
            user.result()
        return slot

    def attach(self, slot: int, pending: PendingFrame) -> PendingFrame:
        self._users[slot] = pending
        return pending


def render_async(backend: Any, batch: Any, width: int, height: int, *,
                 background: ColorLike = (0, 0, 0)) -> PendingFrame:  # fmt: skip
    """``backend.render_async(...)`` where the backend has it, else a finished frame."""
    start = getattr(backend, "render_async", None)
    if callable(start):
        return start(batch, width, height, background=background)
    return PendingFrame.ready(backend.render(batch, width, height, background=background))


def stream(
    backend: Any,
    batches: Iterable[Any],
    width: int,
    height: int,
    *,
    background: ColorLike = (0, 0, 0),
    in_flight: int = 2,
) -> Iterator[FrameBuffer]:
    """Render each batch (or handle) in order, keeping up to ``in_flight`` frames outstanding.

    Yields the frames in order.  A yielded frame is the caller's: it is not reused.
    """
    if isinstance(in_flight, bool) or not isinstance(in_flight, int) or not 1 <= in_flight <= 16:
        raise InvalidSizeError(f"in_flight must be an int in 1..16, got {in_flight!r}")
    pending: deque[PendingFrame] = deque()
    for batch in batches:
        pending.append(render_async(backend, batch, width, height, background=background))
        if len(pending) >= in_flight:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()
