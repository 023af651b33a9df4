"""Closing a backend, one mechanism for all of py_gpu's backends.

A backend that derives from :class:`Backend` is closed once (``close()`` is idempotent); after
that every call of the protocol (:data:`GUARDED`), and every frame still pending, raises
:class:`~py_gpu.errors.BackendClosedError` naming the backend, never the error of a GPU
library whose context is gone.  ``select_backend(name)`` sees ``closed`` and starts a new
instance instead of handing out the closed one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..errors import BackendClosedError

#: The protocol's methods that need an open backend; wrapped in every subclass that has them.
GUARDED = ("render", "render_async", "rasterize_ids", "upload")


def _guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(self: Backend, *args: Any, **kwargs: Any) -> Any:
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
        """Release the backend's resources; later calls raise BackendClosedError."""
        if self._closed:
            return
        self._closed = True
        self._release()

    def _release(self) -> None:
        """Free what the backend holds (GPU context, buffers); nothing by default."""
