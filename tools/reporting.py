"""What the standalone tools scripts (dist, release rehearsal, old glibc) print and run.

Each says what it does under its own prefix, stops with exit status 1 and one line naming
the failed step, and runs commands that must succeed. Standard library only.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import NoReturn


class Reporter:
    """``say``, ``fail`` and ``run`` of one tool, e.g. ``Reporter("dist")``."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def say(self, message: str) -> None:
        print(f"[{self.prefix}] {message}", flush=True)

    def fail(self, message: str) -> NoReturn:
        print(f"[{self.prefix}] error: {message}", file=sys.stderr, flush=True)
        sys.exit(1)

    def run(self, command: list, **kwargs) -> subprocess.CompletedProcess:
        """Run `command` (its parts made strings); fail, naming it, unless it succeeds."""
        result = subprocess.run([str(part) for part in command], check=False, **kwargs)
        if result.returncode != 0:
            captured = (result.stdout or "") + (result.stderr or "") if kwargs.get(
                "capture_output") else ""  # fmt: skip
            where = "\n" + captured if captured else ", output above"
            self.fail(f"{Path(str(command[0])).name} {' '.join(map(str, command[1:4]))} ... "
                      f"failed (exit {result.returncode}{where})")  # fmt: skip
        return result
