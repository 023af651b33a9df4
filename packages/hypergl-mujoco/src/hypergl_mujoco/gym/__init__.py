"""Gymnasium pixel observations rendered by HyperGL (needs the ``gym`` extra: gymnasium).

:class:`PixelObservations` wraps one MuJoCo env; :class:`VectorPixelObservations` wraps a
synchronous vector env and renders all its sub-environments in one submit."""

from __future__ import annotations

from .vector import VectorPixelObservations
from .wrapper import PixelObservations

__all__ = ["PixelObservations", "VectorPixelObservations"]
