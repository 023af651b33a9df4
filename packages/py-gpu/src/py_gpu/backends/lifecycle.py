"""Closing a backend, one mechanism for all of py_gpu's backends.

A backend that derives from :class:`Backend` is closed once (``close()`` is idempotent); after
that every call of the protocol (:data:`GUARDED`), and every frame still pending, raises
:class:`~py_gpu.errors.BackendClosedError` naming the backend, never the error of a GPU
library whose context is gone.  ``select_backend(name)`` sees ``closed`` and starts a new
instance instead of handing out the closed one.

Threads: the protocol's calls on one backend take turns (one lock per backend, taken by
every :data:`GUARDED` call and by ``close()``), so two threads never interleave their
uploads into a backend's shared buffers, and a ``close()`` from another thread waits for the
call in progress. A pending frame's read does not take it (a ``render_async`` holding it may
wait for that very frame to free its ring slot).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

from ..errors import BackendClosedError

#: The protocol's methods that need an open backend; wrapped in every subclass that has them.
GUARDED = ("render", "render_async", "rasterize_ids", "upload")


_making_locks = threading.Lock()


def _lock_of(backend: Backend) -> threading.RLock:
    """The backend's own lock, made at its first use (subclasses need not call a base
    ``__init__``)."""
    lock = backend.__dict__.get("_lifecycle_lock")
    if lock is None:
        with _making_locks:
            lock = backend.__dict__.setdefault("_lifecycle_lock", threading.RLock())
    return lock


def _guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(self: Backend, *args: Any, **kwargs: Any) -> Any:
        with _lock_of(self):
            self.check_open()
            return method(self, *args, **kwargs)

    return call


class Backend:
    """Base class of py_gpu's backends: ``close()`` / ``closed`` and the check they need.

    Subclasses free their resources in ``_release()`` (called once, by the first ``close()``).
    Their :data:`GUARDED` methods are wrapped when the class is made, so a method added later
    cannot forget the check.
    """

    name: str
    _closed = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for attr in GUARDED:
            if attr in cls.__dict__:
                setattr(cls, attr, _guarded(cls.__dict__[attr]))

    @property
    def closed(self) -> bool:
        return self._closed

    def check_open(self) -> None:
        """Raise BackendClosedError naming this backend when it is closed."""
        if self._closed:
            raise BackendClosedError(
                f"the {self.name!r} backend is closed; py_gpu.select_backend({self.name!r}) "
                "starts a new one"
            )

    def close(self) -> None:
        """Release the backend's resources; later calls raise BackendClosedError. From
        another thread than a render's, it waits for that render."""
        with _lock_of(self):
            if self._closed:
                return
            self._closed = True
            self._release()

    def _release(self) -> None:
        """Free what the backend holds (GPU context, buffers); nothing by default."""
