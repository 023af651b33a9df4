"""Ctrl+C for the command line: one line, exit status 130, whatever is running.

A KeyboardInterrupt unwinds through whatever runs when it arrives, and two things there
lose it or hang on it: Python drops an exception raised in a ``__del__`` or in a C callback
(a GLFW key callback during ``poll_events``), and closing a GL context whose GPU still
works on a frame (a shader that loops for minutes) waits in the driver for that frame.
So the command line does not unwind: its SIGINT handler says so and ends the process on
the spot. The handler runs at the next bytecode, or inside the engine's sliced GPU waits
and the VM's signal checks, which call Python's signal handlers every few milliseconds.

It is installed even where the process started with SIGINT ignored (a background job of
a non-interactive shell, such as a test suite run by a script): Python then leaves it
ignored, and Ctrl+C, a command's documented way to stop, would do nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

INTERRUPTED = 130  # 128 + SIGINT, as shells report a command Ctrl+C stopped


@contextlib.contextmanager
def ctrl_c_exits(message: str = "stopped (Ctrl+C)") -> Iterator[None]:
    """Inside, SIGINT prints `message` and ends the process with status 130 at once (no
    cleanup: files already written stay, the GPU's work goes with the process). The
    handler before is put back on the way out; off the main thread (where Python takes
    no signal handlers) nothing changes."""

    def stop(_signum: int, _frame: Any) -> None:
        with contextlib.suppress(Exception):  # a print the signal cut short: finish it first
            sys.stdout.flush()
        with contextlib.suppress(Exception):  # no stdout: the status still says it
            os.write(sys.stdout.fileno(), f"{message}\n".encode())
        os._exit(INTERRUPTED)

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
