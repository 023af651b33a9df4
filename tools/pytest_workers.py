"""How many pytest processes a suite runs in: one per core (pytest-xdist), a test file each.

Most of the suite's time is Python and the GL driver's single-threaded work, so a second
process on a second core nearly halves a 2-core machine's run. Whole files go to one worker
(``--dist loadfile``): a file's module fixtures (a context, a Ray instance, a built model)
are made once, as in a serial run; files are handed out in the order collected, so the long
integration files (collected first) do not end the run on one worker. Standard library only
(tools/ is not a package).
"""

from __future__ import annotations

import os

# Options that need one process: a debugger, output shown live, xdist off, or the caller's own -n.
_SERIAL = ("-s", "--capture=no", "--pdb", "--trace", "no:xdist")
_OWN_COUNT = ("-n", "--numprocesses")


def worker_args(pytest_args: list[str], cores: int | None = None) -> list[str]:
    """``-n N --dist loadfile`` for ``pytest_args``, or nothing where they ask for one process
    (or the machine has one core). ``HYPERGL_TEST_WORKERS`` sets N (1: serial)."""
    if any(arg in _SERIAL or arg.startswith(_OWN_COUNT) for arg in pytest_args):
        return []
    wanted = os.environ.get("HYPERGL_TEST_WORKERS", "")
    if wanted and not (wanted.isdigit() and int(wanted) > 0):
        raise SystemExit(f"HYPERGL_TEST_WORKERS={wanted!r}: a number of processes, 1 or more")
    workers = int(wanted) if wanted else (cores or os.cpu_count() or 1)
    # in the order collected (the longest files first, see pyproject.toml), not by test count
    order = ["--no-loadscope-reorder"]
    return ["-n", str(workers), "--dist", "loadfile", *order] if workers > 1 else []
