"""A one-line progress bar on stderr (stdlib only), shared by the demos and examples."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(self, total: int, label: str, stream: TextIO | None = None) -> None:
        self.total: int = max(total, 1)
        self.label: str = label
        self.stream: TextIO = stream or sys.stderr
        self.started: float = time.perf_counter()
        self.interactive: bool = self.stream.isatty()
        self._last_printed = -1
        self._width = 0

    def update(self, done: int, detail: str = "") -> None:
        """`done` of the total; `detail` (e.g. how a frame's time splits) follows the bar."""
        fraction = min(done / self.total, 1.0)
        percent = int(fraction * 100)
        if not self.interactive and percent // 10 == self._last_printed // 10 and done < self.total:
            return  # in logs: a line every 10 %
        self._last_printed = percent
        elapsed = time.perf_counter() - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        bar = "#" * int(fraction * 30)
        line = f"{self.label} [{bar:<30}] {done}/{self.total} {rate:6.1f}/s"
        if detail:
            line += f" ({detail})"
        if self.interactive:
            self.stream.write("\r" + line.ljust(self._width))  # over a longer last line
            self._width = len(line)
            if done >= self.total:
                self.stream.write("\n")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
