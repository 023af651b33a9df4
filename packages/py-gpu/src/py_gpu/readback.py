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

import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .buffers import ColorLike, FrameBuffer
from .errors import InvalidSizeError


class PendingFrame:
    """A frame on its way back from the GPU.  ``result()`` waits for it (once) and returns it.

    Like a :class:`concurrent.futures.Future`: once settled, ``done()`` is True and every
    ``result()`` gives the same outcome, the frame or the same error raised again (a frame
    whose read failed never turns into ``None``).  An interrupt (``KeyboardInterrupt``) while
    waiting leaves the frame pending, so ``result()`` can wait again.  Thread-safe: two threads
    asking at once wait for one read.
    """

    __slots__ = ("_error", "_finish", "_frame", "_lock")

    def __init__(self, finish: Callable[[], FrameBuffer]) -> None:
        self._finish: Callable[[], FrameBuffer] | None = finish
        self._frame: FrameBuffer | None = None
        self._error: Exception | None = None
        self._lock = threading.Lock()

    @classmethod
    def ready(cls, frame: FrameBuffer) -> PendingFrame:
        pending = cls(lambda: frame)
        pending.result()
        return pending

    def done(self) -> bool:
        """True once the frame is settled, read or failed (it never blocks)."""
        return self._finish is None

    def wait(self) -> None:
        """Settle the frame without raising its error (``result()`` raises it)."""
        if self._finish is None:
            return
        with self._lock:
            finish = self._finish
            if finish is None:  # another thread settled it while we waited for the lock
                return
            try:
                self._frame = finish()
            except Exception as exc:
                self._error = exc
            self._finish = None  # not reached on KeyboardInterrupt: still pending

    def result(self) -> FrameBuffer:
        self.wait()
        if self._error is not None:
            raise self._error
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
            user.wait()  # its error belongs to its own result(), not to the next frame
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
