"""Cross-package tests: GL tests run on real OpenGL, and are skipped with a reason without it."""

from __future__ import annotations

from hypergl.testing import gl_ctx, skip_gl_tests_without_context

__all__ = ["gl_ctx"]  # a fixture, used by name

pytest_collection_modifyitems = skip_gl_tests_without_context
