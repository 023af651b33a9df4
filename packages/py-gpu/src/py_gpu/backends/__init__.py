"""Backend protocol, capabilities and discovery through the ``py_gpu.backends`` entry points.

How a backend registers
-----------------------
A backend is a class (or zero-argument factory) exposed by an entry point in the
``py_gpu.backends`` group of any installed distribution::

    [project.entry-points."py_gpu.backends"]
    mybackend = "my_package.module:MyBackend"

The built-in ``cpu``, ``numpy``, ``numba``, ``moderngl`` and ``wgpu`` backends are registered
exactly the same way by py-gpu's own ``pyproject.toml``; other distributions declare theirs.
Discovery reads entry-point *metadata* once (cached) and imports only the backend that is asked
for; ``select_backend("auto")`` imports each installed backend class (without starting it) to
read the ``priority`` it declares in its capabilities, so py_gpu never names a plugin.

The backend protocol
--------------------
``name: str``
    The registry name (``"cpu"``, ``"wgpu"``...).
``capabilities: BackendCapabilities``
    What the backend supports, its ``api`` and its ``priority`` for ``auto`` (a class attribute,
    read without starting the backend).
``render(batch, width, height, *, background=(0, 0, 0), target=None) -> FrameBuffer``
    Draw a :class:`~py_gpu.RasterBatch` following :mod:`py_gpu.convention`, into ``target`` when
    given (a :class:`~py_gpu.FrameBuffer` of exactly ``width`` x ``height``, else
    :class:`~py_gpu.errors.TargetSizeError`) or into a new frame buffer.  ``width``/``height``
    must be positive integers with at most :data:`py_gpu.buffers.MAX_FRAME_PIXELS` pixels
    (:class:`~py_gpu.errors.InvalidSizeError`) and ``background`` a
    valid colour (:class:`~py_gpu.errors.InvalidColorError`).  Use :func:`check_render_args`.
``probe() -> str | None`` (classmethod, optional)
    Cheap check whether the backend can start on this machine: ``None`` when it can, otherwise a
    one-line human-readable reason.  Without ``probe`` the backend counts as available when its
    class imports and constructs.  Construction itself may also raise to say it cannot start.

Optional, used when present:

``rasterize_ids(batch, width, height) -> (ids, depth)``
    NumPy ``(height, width)`` arrays: the index of the triangle that covers each pixel (``-1`` for
    none, int32) and its ``z`` (``inf`` for none).  :class:`~py_gpu.mesh.MeshRenderer` uses it for
    world-space meshes, attachments and textures; backends without it get the NumPy rasteriser.
``upload(batch) -> BatchHandle``
    Keep a static batch resident (e.g. in GPU memory); ``render`` accepts the handle in place of
    the batch and does not upload again.
``render_async(batch, width, height, *, background=(0, 0, 0)) -> PendingFrame``
    Start a frame without waiting for it (see :mod:`py_gpu.readback`); ``result()`` waits.
``close()`` / ``closed``
    Release resources, once.  py_gpu's backends derive from
    :class:`~py_gpu.backends.lifecycle.Backend`: after ``close()`` every call raises
    :class:`~py_gpu.errors.BackendClosedError` naming the backend, and ``select_backend`` starts a
    new instance in place of one whose ``closed`` is True.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..compat import resolve_alias
from ..errors import BackendUnavailableError, UnknownBackendError
from .lifecycle import Backend
from .protocol import (
    APIS,
    BackendCapabilities,
    BatchHandle,
    RasterBackend,
    check_render_args,
    deliver,
)
from .protocol import frame_for as frame_for  # a backend helper, re-exported as before

if TYPE_CHECKING:  # the lazy exports of __getattr__, as type checkers should see them
    from .cpu import CpuBackend as CpuBackend
    from .moderngl_backend import ModernGLBackend as ModernGLBackend
    from .numba_backend import NumbaBackend as NumbaBackend
    from .numpy_backend import NumpyBackend as NumpyBackend

ENTRY_POINT_GROUP = "py_gpu.backends"

# --------------------------------------------------------------------------- discovery


@dataclass(frozen=True)
class BackendStatus:
    """Whether one installed backend works here, and why not when it does not."""

    name: str
    available: bool
    reason: str | None
    target: str
    capabilities: BackendCapabilities | None = None

    def __str__(self) -> str:
        state = "available" if self.available else f"unavailable: {self.reason}"
        return f"{self.name} ({self.target}): {state}"


_lock = threading.RLock()
_instances: dict[str, Any] = {}
_failures: dict[str, str] = {}


@functools.cache
def _entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    found: dict[str, importlib.metadata.EntryPoint] = {}
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep)
    return found


def refresh() -> None:
    """Forget cached entry points and backend instances (after installing a plugin)."""
    with _lock:
        for backend in _instances.values():
            close = getattr(backend, "close", None)
            if callable(close):
                with contextlib.suppress(Exception):
                    close()
        _instances.clear()
        _failures.clear()
        _entry_points.cache_clear()


def installed_backends() -> tuple[str, ...]:
    """Names of every backend declared in the ``py_gpu.backends`` group, sorted."""
    return tuple(sorted(_entry_points()))


def _load(name: str) -> Any:
    """The backend's class or factory (imports its module, starts nothing)."""
    return _entry_points()[name].load()


def declared_capabilities(name: str) -> BackendCapabilities | None:
    """The capabilities backend ``name`` declares, read without starting it (None if unreadable)."""
    try:
        caps = getattr(_load(name), "capabilities", None)
    except Exception:
        return None
    return caps if isinstance(caps, BackendCapabilities) else None


def auto_order() -> tuple[str, ...]:
    """Installed backends in the order ``auto`` tries them: declared priority, highest first.

    A backend whose class cannot be imported, or declares no capabilities, goes last.
    """

    def rank(name: str) -> tuple[int, str]:
        caps = declared_capabilities(name)
        return (-(caps.priority if caps is not None else -(1 << 30)), name)

    return tuple(sorted(installed_backends(), key=rank))


#: What to install when a backend's import fails for a missing module (top-level name).
INSTALL_HINTS = {
    "numpy": 'pip install "py-gpu[numeric]"',
    "numba": 'pip install "py-gpu[numeric]"',
    "moderngl": 'pip install "py-gpu[opengl]"',
    "glcontext": 'pip install "py-gpu[opengl]"',
}


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    described = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    missing = exc.name if isinstance(exc, ModuleNotFoundError) else None
    if missing:
        top = missing.partition(".")[0]
        described += f" (install it: {INSTALL_HINTS.get(top, f'pip install {top}')})"
    return described


def _start(name: str) -> Any:
    """Load, probe and construct backend ``name``; raise BackendUnavailableError with why not."""
    with _lock:
        if name in _instances:
            if not getattr(_instances[name], "closed", False):
                return _instances[name]
            del _instances[name]  # closed by its user: start a new one below
        if name in _failures:
            raise BackendUnavailableError(f"backend {name!r} cannot start: {_failures[name]}")
        ep = _entry_points()[name]
        try:
            factory = ep.load()
            probe = getattr(factory, "probe", None)
            reason = probe() if callable(probe) else None
            if reason is None:
                backend = factory()
        except Exception as exc:
            reason = _describe(exc)
        if reason is not None:
            _failures[name] = reason
            raise BackendUnavailableError(f"backend {name!r} cannot start: {reason}")
        if not hasattr(backend, "render"):
            _failures[name] = f"{ep.value} has no render() method"
            raise BackendUnavailableError(f"backend {name!r} cannot start: {_failures[name]}")
        if not hasattr(backend, "name"):
            with contextlib.suppress(Exception):
                backend.name = name
        _instances[name] = backend
        return backend


def select_backend(prefer: str = "auto") -> RasterBackend:
    """Return a started backend.

    ``"auto"`` tries the installed backends by the priority they declare (:func:`auto_order`)
    and returns the first that starts (``cpu`` needs nothing, so ``auto`` always succeeds with
    py-gpu's own backends installed).  Any other name loads that entry
    point: :class:`UnknownBackendError` (listing the installed names) when none has that name,
    :class:`BackendUnavailableError` (with the reason) when it cannot start here.  Backends are
    started once per process and shared; one that was closed is replaced by a new one.
    """
    if not isinstance(prefer, str):
        raise UnknownBackendError(f"backend name must be a string, got {prefer!r}")
    name = resolve_alias(prefer.lower())
    if name == "auto":
        reasons = []
        for candidate in auto_order():
            try:
                return _start(candidate)
            except BackendUnavailableError as exc:
                reasons.append(str(exc))
        raise BackendUnavailableError(
            "no backend could start: " + ("; ".join(reasons) or "none is installed")
        )
    if name not in _entry_points():
        installed = ", ".join(installed_backends()) or "none"
        raise UnknownBackendError(
            f"unknown backend {prefer!r}; installed backends: {installed} (or 'auto')"
        )
    return _start(name)


def available_backends() -> dict[str, BackendStatus]:
    """Every installed backend, in ``auto`` order, whether it works here and why not.

    This starts each backend that is not started yet (e.g. creates a GL context).
    """
    result: dict[str, BackendStatus] = {}
    for name in auto_order():
        ep = _entry_points()[name]
        caps = declared_capabilities(name)
        try:
            _start(name)
            result[name] = BackendStatus(name, True, None, ep.value, caps)
        except BackendUnavailableError:
            reason = _failures.get(name, "unknown")
            result[name] = BackendStatus(name, False, reason, ep.value, caps)
    return result


def _lazy_classes() -> dict[str, tuple[str, str]]:
    return {
        "CpuBackend": ("cpu", "CpuBackend"),
        "NumpyBackend": ("numpy_backend", "NumpyBackend"),
        "NumbaBackend": ("numba_backend", "NumbaBackend"),
        "ModernGLBackend": ("moderngl_backend", "ModernGLBackend"),
        "WgpuBackend": ("wgpu_backend", "WgpuBackend"),
    }


def depth_for_ids(xyz: Any, ids: Any) -> Any:
    """The reference depth of triangle ``ids[y, x]`` at each pixel centre (``inf`` where -1).

    For GPU backends that rasterise object ids and need the convention's exact
    depth: ``xyz`` is the batch's (N, 3, 3) screen vertices. Needs NumPy.
    """
    from ._setup import depth_for_ids as reference_depth

    return reference_depth(xyz, ids)


def __getattr__(attr: str) -> Any:
    target = _lazy_classes().get(attr)
    if target is None:
        from .. import compat

        if attr in compat.CLASSES:  # py_gpu 0.0.1 class names
            return compat.legacy_class(attr, optional=False)
        raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
    module = importlib.import_module(f"{__name__}.{target[0]}")
    return getattr(module, target[1])


__all__ = [
    "APIS",
    "ENTRY_POINT_GROUP",
    "Backend",
    "BackendCapabilities",
    "BackendStatus",
    "BatchHandle",
    "RasterBackend",
    "auto_order",
    "available_backends",
    "check_render_args",
    "declared_capabilities",
    "deliver",
    "depth_for_ids",
    "installed_backends",
    "refresh",
    "select_backend",
]
