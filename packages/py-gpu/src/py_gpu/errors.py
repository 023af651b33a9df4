"""Specific exceptions raised by py_gpu.

Every exception derives from :class:`PyGpuError`; the ones about bad values also derive from
:class:`ValueError` (and the backend ones from :class:`LookupError` / :class:`RuntimeError`) so
code written against py_gpu 0.0.1, which raised those built-in types, keeps working.
"""

from __future__ import annotations


class PyGpuError(Exception):
    """Base class of every py_gpu error."""


class InvalidSizeError(PyGpuError, ValueError):
    """A width, height or other size is zero, negative or not an integer."""


class InvalidGeometryError(PyGpuError, ValueError):
    """Coordinates are NaN or infinite, or geometry arrays have the wrong shape."""


class InvalidColorError(PyGpuError, ValueError):
    """A colour is not three channels in 0..255."""


class TargetSizeError(PyGpuError, ValueError):
    """A target buffer does not have the dimensions of the render."""


class UnknownBackendError(PyGpuError, LookupError, RuntimeError):
    """No backend of that name is installed; the message lists the installed ones."""


class BackendUnavailableError(PyGpuError, RuntimeError):
    """The backend is installed but cannot start here; the message says why."""


class BackendClosedError(PyGpuError, RuntimeError):
    """The backend was closed: ``py_gpu.select_backend(name)`` starts a new one."""
