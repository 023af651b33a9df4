"""A command run under Xvfb when there is no display, so window tests can run.

Standard library only; used by tools/dev.py and tools/free_threaded.py (a module of its
own so that neither imports the other).
"""

from __future__ import annotations

import os
import shutil


def virtual_display_command(command: list[str]) -> list[str]:
    """Run under Xvfb when there is no display, so window tests can run."""
    if os.environ.get("DISPLAY") or shutil.which("xvfb-run") is None:
        return command
    return ["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24", *command]
