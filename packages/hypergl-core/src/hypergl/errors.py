"""Exceptions raised by HyperGL. Each message names the value that was wrong."""

from __future__ import annotations


class HyperGLError(Exception):
    """Base class of every error HyperGL raises on purpose."""


class ContextError(HyperGLError):
    """No OpenGL context could be created, or the context is gone."""
