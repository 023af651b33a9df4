"""HyperGL: record a render loop once, replay it from a verified C++ VM in one call."""

from __future__ import annotations

from .capabilities import Capabilities
from .errors import ContextError, HyperGLError
from .probe import probe

__version__ = "0.1.0"

__all__ = ["Capabilities", "ContextError", "HyperGLError", "__version__", "probe"]
