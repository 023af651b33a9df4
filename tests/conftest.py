"""Cross-package tests: GL tests run on real OpenGL, and are skipped with a reason without it."""

from __future__ import annotations

import pytest

from hypergl.testing import gl_ctx, skip_gl_tests_without_context

__all__ = ["gl_ctx"]  # a fixture, used by name

pytest_collection_modifyitems = skip_gl_tests_without_context

# With the suite on several workers (pytest-xdist, one file each: tools/pytest_workers.py),
# a file that uses what another leaves behind runs on the same worker, after it: the typing
# checks install the wheels CI's dist test leaves in $HYPERGL_DIST_OUT instead of building
# their own (two minutes).
RUN_AFTER = {"tests/integration/test_typing.py": "tests/integration/test_dist_command.py"}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadFileScheduling

    class FileScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return RUN_AFTER.get(scope, scope)

    return FileScheduling(config, log) if config.getvalue("dist") == "loadfile" else None
