"""Fixtures of the hypergl-rl tests: contexts (GL tests skip, with the reason, without one)."""

from __future__ import annotations

from hypergl.testing import ctx, gl_ctx, skip_gl_tests_without_context

__all__ = ["ctx", "gl_ctx"]  # fixtures, used by name

pytest_collection_modifyitems = skip_gl_tests_without_context
