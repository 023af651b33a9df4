"""One lock per object that owns native or GPU state: its uses run one at a time.

An object that changes its state over several engine calls (a renderer rebinding its
worlds, a draw list grouping its objects, records written row by row) is left half-changed
if two threads interleave those calls, and a ``close()`` racing a use would free what the
use is still touching. Such an object holds a :class:`Guard` in ``self._guard`` and marks
its methods: :func:`serialised` ones run under the guard's lock, one thread at a time, and
raise the object's own closed error once it is closed; the :func:`closing` one (``close``
or ``release``) waits for the use in progress, runs once, and leaves the object closed even
if it fails. The state is checked under the lock that changes it, so no use sees an object
half-closed. The lock is re-entrant: a serialised method may call another.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class Guard:
    """The lock and the closed state of one object; ``with guard:`` holds the lock of a
    live object, and raises ``error(message)`` (the lock given back) once it is closed."""

    __slots__ = ("_error", "_lock", "_message", "closed")

    def __init__(self, error: type[Exception], message: str) -> None:
        self._lock = threading.RLock()
        self._error = error
        self._message = message
        self.closed = False

    def __enter__(self) -> Guard:
        self._lock.acquire()
        if self.closed:
            self._lock.release()
            raise self._error(self._message)
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


def serialised(method: F) -> F:
    """`method` runs under ``self._guard``: one thread at a time, refused once closed."""

    @functools.wraps(method)
    def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self._guard:
            return method(self, *args, **kwargs)

    return guarded  # type: ignore[return-value]


def closing(method: F) -> F:
    """`method` (``close`` / ``release``) runs once, after the use in progress; a second call
    does nothing, and the object is closed afterwards even if `method` raised."""

    @functools.wraps(method)
    def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
        guard: Guard = self._guard
        with guard._lock:
            if guard.closed:
                return None
            try:
                return method(self, *args, **kwargs)
            finally:
                guard.closed = True

    return guarded  # type: ignore[return-value]
