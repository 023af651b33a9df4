"""Physics beside the drawing: frame N is drawn from state N while the physics computes N + 1.

:class:`PhysicsPipeline` runs the caller's physics ``step()`` on a thread of its own and the
frame's ``snapshot()`` and ``draw()`` in the caller's thread, in this order::

    frame N:   [wait for step N]  snapshot N  | draw N, the caller's own work ...
                                              | step N + 1 on the physics thread

Both sides spend their time in C++ with the GIL released (a Culverin or MuJoCo step; the
VM's submit and readback), so on a free-threaded build or not they run at once; the frame
costs about the longer of the two instead of their sum.

**The handoff is the snapshot.** The engine's own memory and the bridge's records are the
two buffers: the physics thread writes only the first, the GPU reads only the second, and
``snapshot()`` copies one into the other (the bridge's C++ conversion, no per-body Python)
while neither side runs. The step for N + 1 starts only once ``snapshot()`` has returned,
and the next snapshot starts only once that step has returned, so the GPU never sees a
half-stepped state and the engine never waits for a copy. The body renderer's fence,
waited for inside the snapshot program, keeps the records from being overwritten while
the GPU still draws the previous frame. An overlapped run therefore draws exactly what a
sequential run (``overlapped=False``: step, snapshot, draw, one after the other) draws.

**The record-source contract** a bridge follows to be pipelined (both bridges do):

* everything a frame reads of the engine's state is copied in the *sync*: the record
  source's ``record(cmd)`` (the engine's ``upload`` from its arrays into the records, see
  :mod:`hypergl.bodies.records`), plus any per-frame Python read of the state (camera
  poses, attachments' transforms) made before it;
* the sync is recorded in a program of its own, :meth:`hypergl.bodies.BodyRenderer.
  record_sync`, and the drawing without it (``BodyRenderer.record(cmd, sync=False)``);
  ``snapshot()`` submits the sync program, ``draw()`` the drawing;
* after the sync program's submit returns, nothing drawn reads the engine's memory: the
  source releases its views (or, with kept views, holds no lock) when its copy is done;
* the physics step touches only the engine (never HyperGL, whose context the drawing
  holds), and releases the GIL while it computes.

**A step drawn in parts** (:class:`StepInParts`): when the next step cannot start before
this one's pixels are back (a policy chooses the next actions from them), the step itself is
split: its parts (e.g. the sub-environments of a vector env, in the order it steps them)
are drawn one by one while the physics computes the later parts on the physics thread.
``step(finished)`` calls ``finished(k)`` once parts 0..k are done and will not be touched
again in this step; ``draw(k)`` then draws part k from the engine's memory directly (the
physics is elsewhere by then: no snapshot needed).

Errors: an exception raised by ``step()`` on the physics thread is re-raised in the caller's
thread at the next :meth:`PhysicsPipeline.frame` (or :meth:`PhysicsPipeline.close`), with a
note saying where it came from; after it the pipeline is broken and says so. An exception in
``snapshot()`` or ``draw()`` (Ctrl+C included) first waits for the step in flight, so no step
runs on after the caller has left, then propagates. A Culverin or MuJoCo step cannot be
interrupted; a Ctrl+C during one takes effect as soon as it returns.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Self, TypeVar

from .errors import HyperGLError

T = TypeVar("T")


class PipelineError(HyperGLError):
    """A :class:`PhysicsPipeline` cannot do what was asked: it was closed, or an earlier
    step failed (that error was raised then)."""


@dataclass
class FrameTimes:
    """Seconds spent over the pipeline's frames: ``physics`` in ``step()``, ``render`` in
    ``snapshot()`` and ``draw()``, ``waited`` by the caller for a step still running, and
    ``wall`` from the first frame's start to the last one's join."""

    frames: int = 0
    physics: float = 0.0
    render: float = 0.0
    waited: float = 0.0
    inline: float = 0.0  # physics run in the caller's thread (sequential, or the first step)
    wall: float = 0.0

    @property
    def overlap(self) -> float:
        """Physics seconds that ran beside the caller's work (0 for a sequential run)."""
        return max(0.0, self.physics - self.inline - self.waited)

    def per_frame_ms(self) -> dict[str, float]:
        """Milliseconds a frame: physics, render, overlap and the frame itself."""
        n = max(self.frames, 1)
        return {"physics_ms": 1e3 * self.physics / n, "render_ms": 1e3 * self.render / n,
                "overlap_ms": 1e3 * self.overlap / n, "frame_ms": 1e3 * self.wall / n}  # fmt: skip

    def describe(self) -> str:
        """One line: how a frame's time splits, e.g. for a progress bar."""
        ms = self.per_frame_ms()
        return (f"physics {ms['physics_ms']:.1f} ms, render {ms['render_ms']:.1f} ms, "
                f"overlap {ms['overlap_ms']:.1f} ms = {ms['frame_ms']:.1f} ms a frame")  # fmt: skip


class _PhysicsThread:
    """The thread a physics step runs on and the handoff of its result and error to the
    caller's thread, shared by :class:`PhysicsPipeline` and :class:`StepInParts` (one
    mechanism: a Ctrl+C while waiting, a step's error, a closed or broken pipeline are
    handled the same way for both)."""

    def __init__(self, overlapped: bool, name: str) -> None:
        if not isinstance(overlapped, bool):
            raise TypeError(f"overlapped must be True or False, got {overlapped!r}")
        self.overlapped: bool = overlapped
        self.times: FrameTimes = FrameTimes()
        self._job: Callable[[], Any] | None = None
        self._in_flight = False  # a job runs (or ran unjoined) on the physics thread
        self._error: BaseException | None = None
        self._broken: str | None = None
        self._closed = False
        self._started: float | None = None
        self._go = threading.Semaphore(0)
        self._done = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = None
        if overlapped:
            self._thread = threading.Thread(target=self._work, name=name, daemon=True)
            self._thread.start()

    # --- the physics thread ----------------------------------------------------------------
    def _work(self) -> None:
        while True:
            self._go.acquire()
            if self._stopping:
                return
            tick = time.perf_counter()
            try:
                self._job()
            except BaseException as exc:  # handed to the caller's thread, raised there
                self._error = exc
            self.times.physics += time.perf_counter() - tick
            self._done.set()

    def _start(self, job: Callable[[], Any]) -> None:
        self._job = job
        self._go.release()  # first: a Ctrl+C before the flag leaves no wait unmet
        self._in_flight = True

    def _join(self) -> None:
        """Wait for the step in flight; a Ctrl+C meanwhile is raised once it has returned
        (the step cannot be stopped halfway, and must not run on after the caller left)."""
        if not self._in_flight:
            return
        tick = time.perf_counter()
        interrupted: BaseException | None = None
        while True:  # an Event, not a semaphore: a Ctrl+C anywhere here loses no wake-up
            try:
                if self._done.wait():
                    break
            except BaseException as exc:  # KeyboardInterrupt (or another async exception)
                interrupted = interrupted or exc
        self._done.clear()
        self._in_flight = False
        self.times.waited += time.perf_counter() - tick
        if interrupted is not None:
            self._broken = "it was interrupted"
            raise interrupted
        if self._error is not None:
            error, self._error = self._error, None
            self._broken = f"its step raised {type(error).__name__}: {error}"
            error.add_note(f"(raised by the step on hypergl.{type(self).__name__}'s physics "
                           "thread)")  # fmt: skip
            raise error

    def _join_under_error(self) -> None:
        """Wait for the step in flight while the caller's error propagates: that error is
        the one raised (a step error meanwhile is dropped)."""
        with contextlib.suppress(BaseException):
            self._join()

    def _step_inline(self, step: Callable[[], T]) -> T:
        tick = time.perf_counter()
        try:
            return step()
        except BaseException as exc:
            self._broken = f"its step raised {type(exc).__name__}: {exc}"
            raise
        finally:
            spent = time.perf_counter() - tick
            self.times.physics += spent
            self.times.inline += spent

    # --- the caller's thread ---------------------------------------------------------------
    def _check_usable(self) -> None:
        if self._closed:
            raise PipelineError(f"this {type(self).__name__} has been closed")
        if self._broken is not None:
            raise PipelineError(f"this {type(self).__name__} cannot go on: {self._broken}")

    def wait(self) -> None:
        """Wait for the step in flight (re-raising its error here); the physics state is
        then the caller's to read or change until the next frame."""
        self._check_usable()
        self._join()
        if self._started is not None:
            self.times.wall = time.perf_counter() - self._started

    def close(self) -> None:
        """Wait for the step in flight, stop the physics thread; safe to call twice. A step's
        error not yet raised is raised here."""
        if self._closed:
            return
        try:
            self._join()
        finally:
            self._closed = True
            if self._thread is not None:
                self._stopping = True
                self._go.release()
                self._thread.join()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: Any, *rest: Any) -> None:
        if kind is None:
            self.close()
            return
        with contextlib.suppress(BaseException):  # another error propagates: not hidden
            self.close()

    def __repr__(self) -> str:
        mode = "overlapped" if self.overlapped else "sequential"
        state = " closed" if self._closed else f" broken ({self._broken})" if self._broken else ""
        return f"<{type(self).__name__} {mode} frames={self.times.frames}{state}>"


class PhysicsPipeline(_PhysicsThread):
    """Steps `step` (a callable of no arguments) once a frame on a physics thread while the
    caller draws the previous step's result (see the module doc for the order and the
    contract). ``overlapped=False`` runs the same frames one stage after the other, in the
    caller's thread: the comparison, and what an overlapped run must draw identically.

    One thread (the caller's) calls :meth:`frame`, :meth:`wait` and :meth:`close`. Use as a
    context manager (or call :meth:`close`)::

        with hypergl.PhysicsPipeline(lambda: world.step(dt)) as pipeline:
            for n in range(frames):
                pipeline.frame(snapshot, draw, step_after=n + 1 < frames)
    """

    def __init__(self, step: Callable[[], Any], *, overlapped: bool = True,
                 name: str = "hypergl-physics") -> None:  # fmt: skip
        if not callable(step):
            raise TypeError(f"step must be a callable of no arguments, got {step!r}")
        super().__init__(overlapped, name)
        self._step = step
        self._stepped = False  # the state the next frame draws has been computed

    def frame(self, snapshot: Callable[[], Any], draw: Callable[[], T], *,
              step_after: bool = True) -> T:  # fmt: skip
        """One frame: the physics state is stepped once (by the step started last frame,
        waited for now, or here for the first frame), ``snapshot()`` copies it into the
        records, the next step starts (``step_after=False`` on the last frame: none) and
        ``draw()`` draws the snapshot; returns what ``draw()`` returns.

        The step runs on while the caller does more after this call (writes a video frame,
        swaps a window); the next ``frame`` or :meth:`close` waits for it."""
        self._check_usable()
        if not callable(snapshot) or not callable(draw):
            raise TypeError(f"frame needs callables snapshot and draw, got {snapshot!r} "
                            f"and {draw!r}")  # fmt: skip
        if self._started is None:
            self._started = time.perf_counter()
        self._join()  # this frame's step, started last frame (its error is raised here)
        if not self._stepped:  # sequential, the first frame, or after step_after=False
            self._step_inline(self._step)
        tick = time.perf_counter()
        try:
            snapshot()
            self._stepped = False
            if step_after and self.overlapped:
                self._start(self._step)
                self._stepped = True
            result = draw()
        except BaseException:
            self.times.render += time.perf_counter() - tick
            self._broken = self._broken or "its snapshot or draw raised"
            self._join_under_error()
            raise
        self.times.render += time.perf_counter() - tick
        self.times.frames += 1
        self.times.wall = time.perf_counter() - self._started
        return result


class StepInParts(_PhysicsThread):
    """One step at a time, drawn part by part while the physics computes the later parts on
    the physics thread (see the module doc). ``overlapped=False``: the step, then every
    part's draw, in the caller's thread; both draw the same.

    One thread (the caller's) calls :meth:`run` and :meth:`close`::

        with hypergl.StepInParts() as parts:
            result, drawn = parts.run(lambda finished: step_all(finished), 4, draw_part)
    """

    def __init__(self, *, overlapped: bool = True, name: str = "hypergl-physics") -> None:
        super().__init__(overlapped, name)

    def run(self, step: Callable[[Callable[[int], None]], T], parts: int,
            draw: Callable[[int], Any]) -> tuple[T, list[Any]]:  # fmt: skip
        """Run ``step(finished)`` on the physics thread, and ``draw(k)`` for k = 0 ..
        ``parts`` - 1 in the caller's thread, each once ``finished(k)`` (or a later part's)
        was called or the step has returned; returns (what ``step`` returned, the draws'
        results). An error of the step is raised here once it has returned, after the
        parts done before it were drawn or not (a failed step's pixels are not returned)."""
        self._check_usable()
        if not callable(step) or not callable(draw):
            raise TypeError(f"run needs callables step and draw, got {step!r} and {draw!r}")
        if isinstance(parts, bool) or not isinstance(parts, int) or parts < 1:
            raise ValueError(f"parts must be a positive integer, got {parts!r}")
        if self._started is None:
            self._started = time.perf_counter()
        if not self.overlapped:
            result = self._step_inline(lambda: step(_no_part_marks(parts)))
            drawn = self._draw_parts(range(parts), draw)
        else:
            progress = _PartProgress(parts)
            returned: list[T] = []
            self._start(lambda: progress.run(lambda: returned.append(step(progress.finished))))
            drawn = self._draw_parts(progress.ready(self.times), draw)
            self._join()  # the step's error, if any, is raised here
            result = returned[0]
        self.times.frames += 1
        self.times.wall = time.perf_counter() - self._started
        return result, drawn

    def _draw_parts(self, ready: Iterable[int], draw: Callable[[int], Any]) -> list[Any]:
        drawn = []
        try:
            for part in ready:
                tick = time.perf_counter()
                try:
                    drawn.append(draw(part))
                finally:
                    self.times.render += time.perf_counter() - tick
        except BaseException:
            self._broken = self._broken or "a part's draw raised"
            self._join_under_error()
            raise
        return drawn


def _no_part_marks(parts: int) -> Callable[[int], None]:
    """``finished`` of a sequential run: checked as an overlapped run checks it."""
    return lambda part: _check_part(part, parts)


def _check_part(part: Any, parts: int) -> None:
    if isinstance(part, bool) or not isinstance(part, int) or not 0 <= part < parts:
        raise ValueError(f"finished(part) takes a part in 0..{parts - 1}, got {part!r}")


class _PartProgress:
    """How many parts of the step in flight are done, told by the physics thread and
    waited for by the caller."""

    def __init__(self, parts: int) -> None:
        self.parts = parts
        self.done = 0
        self.ended = False  # the step returned (or raised): whatever is left is done
        self.failed = False
        self._changed = threading.Condition()

    def finished(self, part: int) -> None:
        _check_part(part, self.parts)
        with self._changed:
            self.done = max(self.done, part + 1)
            self._changed.notify()

    def run(self, step: Callable[[], Any]) -> None:
        try:
            step()
        except BaseException:
            self.failed = True
            raise
        finally:
            with self._changed:
                self.ended = True
                self._changed.notify()

    def ready(self, times: FrameTimes) -> Iterator[int]:
        """The parts in order, each once it is done; stops early when the step failed."""
        for part in range(self.parts):
            tick = time.perf_counter()
            with self._changed:
                while self.done <= part and not self.ended:
                    self._changed.wait()
                if self.failed:
                    return
            times.waited += time.perf_counter() - tick
            yield part


# --- where the threads go ---------------------------------------------------------------------
# Both stages bring threads of their own (Jolt's job threads, 4 by default; llvmpipe's raster
# threads, one a core): overlapped on 2 cores, 7 threads contend for them. Measured on 2
# shared cores (benchmarks/overlap.py --layouts, a process a run, 3 rounds, load 8.4): the
# demo overlapped with one job thread and one raster thread beside each stage's own ran
# 1.30x the best sequential layout, 1.25x with the defaults (CPU 109 against 115 ms a
# frame; an earlier 3 rounds: a median frame of 75.0 against 81.9 ms); a small edge, under
# noise of 20-30 % between rounds. The humanoid grid did better with MuJoCo's defaults
# (1.43x against 1.31x), so the demo asks for it and the grid does not. Not measured on more
# cores: there the engines' defaults stay.
MEASURED_CORES = 2


def stage_threads(cores: int | None = None) -> int | None:
    """Helper threads for each stage of an overlapped run on a machine of `cores` (None:
    this one's): 1 on a machine of at most 2 cores (each stage then has its own thread and
    one helper); None on more (leave the engines' defaults)."""
    cores = os.cpu_count() if cores is None else cores
    if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
        raise ValueError(f"cores must be a positive integer, got {cores!r}")
    return 1 if cores <= MEASURED_CORES else None


def ask_raster_threads(threads: int) -> bool:
    """Ask llvmpipe for `threads` raster threads: sets ``LP_NUM_THREADS`` unless the
    environment already has it (the user's word stands). llvmpipe reads it once, when the
    process's first GL context is made: call this before. Returns whether it was set."""
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise ValueError(f"threads must be a non-negative integer, got {threads!r}")
    if "LP_NUM_THREADS" in os.environ:
        return False
    os.environ["LP_NUM_THREADS"] = str(threads)
    return True


__all__ = [
    "FrameTimes",
    "PhysicsPipeline",
    "PipelineError",
    "StepInParts",
    "ask_raster_threads",
    "stage_threads",
]
