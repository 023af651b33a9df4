"""What a context's programs share between submits: the clock and the random generator.

``get_time`` reads seconds since the context's first submit, ``get_delta`` seconds since
its previous one. On the ``gl`` device the clock is the monotonic wall clock unless the
caller sets it; on ``trace`` and ``null`` it stands still (at 0) until the caller moves
it with ``ctx.set_clock(seconds)`` or ``submit(clock=seconds)``, so their runs are exact.

``gen_rand`` draws from one seeded generator per context (SplitMix64 in the engine): its
state carries on from submit to submit, ``ctx.seed(n)`` or ``submit(seed=n)`` restarts it,
so two runs with the same seeds give the same numbers. The default seed is 0.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

U64 = (1 << 64) - 1


def check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= U64:
        raise ValueError(f"seed must be an int in 0..2**64-1, got {seed!r}")
    return seed


def check_clock(seconds: Any) -> float:
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise TypeError(f"clock must be a number of seconds, got {seconds!r}")
    if not math.isfinite(seconds):
        raise ValueError(f"clock must be a finite number of seconds, got {seconds!r}")
    return float(seconds)


class VMState:
    """One context's clock readings and generator state (held by its ContextLink)."""

    __slots__ = ("_first", "_last", "_set", "lock", "random_state", "wall_clock")
    random_state: int
    wall_clock: bool
    lock: threading.RLock

    def __init__(self, wall_clock: bool) -> None:
        self.wall_clock = wall_clock  # the gl device: read time.monotonic() when unset
        self._set: float | None = None  # the caller's clock, if set
        self._first: float | None = None  # reading at the first submit
        self._last: float | None = None  # reading at the previous submit
        self.random_state = 0
        self.lock = threading.RLock()  # held by a submit from its clock reading to its return

    def set_clock(self, seconds: Any) -> None:
        self._set = check_clock(seconds)

    def seed(self, seed: Any) -> None:
        self.random_state = check_seed(seed)

    def tick(self, clock: Any = None) -> tuple[float, float]:
        """(time, delta) for the submit starting now; `clock` sets the clock first."""
        if clock is not None:
            self.set_clock(clock)
        now = self._set
        if now is None:
            now = time.monotonic() if self.wall_clock else 0.0
        first = now if self._first is None else self._first
        last = now if self._last is None else self._last
        self._first, self._last = first, now
        return now - first, now - last


@dataclass(frozen=True)
class SubmitVM:
    """The VM options of one submit (see CommandBuffer.submit)."""

    clock: float | None = None  # set the context's clock to this reading first
    seed: int | None = None  # restart the context's generator from this seed first
    keep_registers: bool = False  # start from the previous submit's final registers
    debug_sink: Callable[[str], Any] | None = None  # receives print/dump output

    def __post_init__(self) -> None:
        if self.clock is not None:
            check_clock(self.clock)
        if self.seed is not None:
            check_seed(self.seed)
        if not isinstance(self.keep_registers, bool):
            raise TypeError(f"keep_registers must be a bool, got {self.keep_registers!r}")
        if self.debug_sink is not None and not callable(self.debug_sink):
            raise TypeError(f"debug_sink must be callable (e.g. print), got {self.debug_sink!r}")


NO_VM = SubmitVM()
