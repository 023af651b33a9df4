"""hypergl.PhysicsPipeline: frame N drawn from state N while the physics steps N + 1 on its
own thread. A record source of NumPy "physics" (positions the step moves, synced into the
records by the engine's upload, as a third-party bridge would) draws the same frames
overlapped and sequential; errors on either side reach the caller; Ctrl+C stops a run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import sysconfig
import textwrap
import threading
import time

import numpy as np
import pytest

import hypergl
from hypergl.bodies import BodyRenderer, InstanceRecords
from hypergl.pipelining import PhysicsPipeline, PipelineError
from hypergl.transforms import look_at, perspective

BODIES = 24


class Falling:
    """A deterministic stand-in for a physics engine: positions in float64, moved by a
    whole-array NumPy step (the engine's own memory, which the pipeline never draws)."""

    def __init__(self) -> None:
        grid = np.arange(BODIES, dtype=np.float64)
        self.position = np.column_stack([grid % 6 - 2.5, grid // 6 + 3.0, np.zeros(BODIES)])
        self.velocity = np.zeros((BODIES, 3))
        self.steps = 0

    def step(self) -> None:
        self.velocity[:, 1] -= 9.81 / 60
        self.position += self.velocity / 60
        below = self.position[:, 1] < -2.0
        self.position[below, 1] = -2.0
        self.velocity[below] *= -0.5
        self.steps += 1


class FallingRecords(InstanceRecords):
    """The record-source contract followed by a bridge: ``record(cmd)`` records the engine's
    upload of the physics state into the records (the sync)."""

    def __init__(self, ctx: hypergl.Context, world: Falling) -> None:
        super().__init__(ctx, BODIES)
        self.records["id"][:] = np.arange(BODIES) % 3
        self.count = BODIES
        field = {"source": 0, "type": "f64", "stride": 24, "components": 3, "at": 0}
        self.source = ctx.attribute_source(world, ["position"], [field], record_size=32,
                                           keep_views=True)  # fmt: skip

    def record(self, cmd: hypergl.CommandBuffer) -> None:
        cmd.upload(self.source, self.buffer)


def run_frames(ctx: hypergl.Context, frames: int, overlapped: bool) -> list[np.ndarray]:
    world = Falling()
    records = FallingRecords(ctx, world)
    renderer = BodyRenderer(records, max_ids=4)
    for look in range(3):
        renderer.set_look(look, "sphere" if look else "box", 0.4 if look else (0.4,) * 3)
    renderer.set_camera(perspective(50.0, 4 / 3, 0.1, 100.0) @ look_at((0, 1, 14), (0, 1, 0)))
    target = ctx.framebuffer((64, 48))
    draw_cmd = ctx.command_buffer()
    draw_cmd.bind_framebuffer(target)
    draw_cmd.clear(color=(0.1, 0.2, 0.3, 1.0), depth=1.0)
    renderer.record(draw_cmd, sync=False)
    draw_cmd.end()
    sync_cmd = ctx.command_buffer()
    renderer.record_sync(sync_cmd)
    sync_cmd.end()

    def draw() -> np.ndarray:
        draw_cmd.submit()
        return target.read(components=3)

    with PhysicsPipeline(world.step, overlapped=overlapped) as pipeline:
        shown = [pipeline.frame(sync_cmd.submit, draw, step_after=n + 1 < frames)
                 for n in range(frames)]  # fmt: skip
    assert world.steps == frames  # one step a frame, none wasted after the last
    assert pipeline.times.frames == frames
    renderer.release()
    records.source.release()
    records.release()
    return shown


@pytest.mark.gl
def test_an_overlapped_run_draws_exactly_what_a_sequential_run_draws(gl_ctx):
    sequential = run_frames(gl_ctx, 20, overlapped=False)
    overlapped = run_frames(gl_ctx, 20, overlapped=True)
    assert len({frame.tobytes() for frame in sequential}) > 10  # the bodies move
    for n, (one, other) in enumerate(zip(sequential, overlapped, strict=True)):
        assert np.array_equal(one, other), f"frame {n} differs"
    if sysconfig.get_config_var("Py_GIL_DISABLED"):  # the free-threaded suite runs this too
        assert sys._is_gil_enabled() is False


def test_frame_n_shows_state_n_and_the_next_step_runs_beside_the_draw():
    world = Falling()
    seen = []
    during_draw = []

    def draw() -> None:
        during_draw.append(threading.active_count())
        return None

    with PhysicsPipeline(world.step) as pipeline:
        for n in range(5):
            pipeline.frame(lambda: seen.append(world.steps), draw, step_after=n < 4)
    assert seen == [1, 2, 3, 4, 5]  # frame N is the snapshot after N steps
    assert world.steps == 5
    sequential = Falling()
    seen.clear()
    with PhysicsPipeline(sequential.step, overlapped=False) as pipeline:
        for _ in range(5):
            pipeline.frame(lambda: seen.append(sequential.steps), draw)
    assert seen == [1, 2, 3, 4, 5]
    assert pipeline.times.overlap == 0.0 and pipeline.times.inline == pipeline.times.physics


def test_wait_hands_the_state_to_the_caller_between_frames():
    world = Falling()
    with PhysicsPipeline(world.step) as pipeline:
        pipeline.frame(lambda: None, lambda: None)
        pipeline.wait()  # the step started by that frame is done: the state is ours
        assert world.steps == 2
        world.position[:] = 0.0  # e.g. a reset between episodes
        seen = pipeline.frame(lambda: world.steps, lambda: world.position[0, 1],
                              step_after=False)  # fmt: skip
    assert world.steps == 2 and seen == 0.0  # no step lost, none added


class Exploded(RuntimeError):
    pass


def test_an_exception_in_the_physics_thread_reaches_the_caller():
    calls = []

    def step() -> None:
        calls.append(threading.current_thread().name)
        if len(calls) == 3:
            raise Exploded("the solver diverged")

    pipeline = PhysicsPipeline(step, name="test-physics")
    pipeline.frame(lambda: None, lambda: None)  # step 1 inline, step 2 on the thread
    pipeline.frame(lambda: None, lambda: None)  # step 3 raises on the thread
    with pytest.raises(Exploded, match="the solver diverged") as caught:
        pipeline.frame(lambda: None, lambda: None)
    assert calls[2] == "test-physics" and calls[0] == threading.current_thread().name
    assert any("physics thread" in note for note in caught.value.__notes__)
    with pytest.raises(PipelineError, match="Exploded: the solver diverged"):
        pipeline.frame(lambda: None, lambda: None)
    pipeline.close()
    pipeline.close()  # twice is fine
    with pytest.raises(PipelineError, match="closed"):
        pipeline.frame(lambda: None, lambda: None)


def test_a_draw_error_waits_for_the_step_in_flight_then_reaches_the_caller():
    finished = threading.Event()

    def step() -> None:
        time.sleep(0.05)  # releases the GIL, as an engine's step does
        finished.set()

    def draw() -> None:
        raise Exploded("the draw failed")

    pipeline = PhysicsPipeline(step)
    pipeline.frame(lambda: None, lambda: None)
    finished.clear()
    with pytest.raises(Exploded, match="the draw failed"):
        pipeline.frame(lambda: None, draw)
    assert finished.is_set()  # no step runs on after the error left frame()
    with pytest.raises(PipelineError, match="snapshot or draw raised"):
        pipeline.frame(lambda: None, lambda: None)
    pipeline.close()


def test_bad_arguments_get_clear_errors():
    with pytest.raises(TypeError, match="step must be a callable"):
        PhysicsPipeline(42)
    with pytest.raises(TypeError, match="overlapped must be True or False"):
        PhysicsPipeline(lambda: None, overlapped="yes")
    with PhysicsPipeline(lambda: None) as pipeline, pytest.raises(TypeError, match="callables"):
        pipeline.frame(None, lambda: None)


CTRL_C_RUN = textwrap.dedent(
    """
    import sys, time, threading
    from hypergl.pipelining import PhysicsPipeline

    state = {"steps": 0, "stepping": False}

    def step():
        state["stepping"] = True
        time.sleep(0.02)  # an engine's step: the GIL released
        state["steps"] += 1
        state["stepping"] = False

    def draw():
        time.sleep(0.02)

    try:
        with PhysicsPipeline(step) as pipeline:
            for n in range(100000):
                pipeline.frame(lambda: None, draw)
                if n == 3:
                    print("running", flush=True)
    except KeyboardInterrupt:
        alive = [t.name for t in threading.enumerate() if t is not threading.main_thread()]
        print(f"interrupted stepping={state['stepping']} threads={alive}", flush=True)
        sys.exit(130)
    """
)


def test_ctrl_c_stops_an_overlapped_run_cleanly():
    def default_sigint() -> None:  # even when this run inherited it ignored (a background job)
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    process = subprocess.Popen([sys.executable, "-c", CTRL_C_RUN], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               preexec_fn=default_sigint)  # fmt: skip
    try:
        assert process.stdout.readline().strip() == "running"
        os.kill(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert "interrupted stepping=False threads=[]" in out  # the step done, the thread gone
    assert "Traceback" not in err


# --- StepInParts: one step drawn part by part while the later parts' physics runs ----------


def parted_run(overlapped: bool, steps: int = 3, parts: int = 4):
    """A step over `parts` "sub-environments" (one Falling each), each told finished when
    done; each draw reads its part's state and notes which parts were done meanwhile."""
    worlds = [Falling() for _ in range(parts)]
    log = []

    def step(finished):
        for k, world in enumerate(worlds):
            time.sleep(0.002)  # an engine's step, the GIL released
            world.step()
            finished(k)
        return sum(world.steps for world in worlds)

    def draw(k):
        log.append((k, [w.steps for w in worlds]))
        return worlds[k].position.copy()

    with hypergl.StepInParts(overlapped=overlapped, name="test-parts") as stepper:
        results = [stepper.run(step, parts, draw) for _ in range(steps)]
    assert stepper.times.frames == steps
    return results, log


def test_step_in_parts_draws_each_part_once_done_and_as_a_sequential_run():
    overlapped, log = parted_run(True)
    sequential, sequential_log = parted_run(False)
    for (total, drawn), (other_total, other_drawn) in zip(overlapped, sequential, strict=True):
        assert total == other_total
        for one, other in zip(drawn, other_drawn, strict=True):
            assert np.array_equal(one, other)
    assert [k for k, _ in log] == [0, 1, 2, 3] * 3
    for n, (k, steps) in enumerate(log):
        assert all(s >= n // 4 + 1 for s in steps[: k + 1])  # its part and those before: done
    # sequential: every part done before the first draw
    assert all(min(steps) == n // 4 + 1 for n, (_, steps) in enumerate(sequential_log))


def test_step_in_parts_an_error_of_the_step_reaches_the_caller():
    drawn = []

    def step(finished):
        finished(0)
        raise Exploded("part 1 diverged")

    stepper = hypergl.StepInParts(name="test-parts")
    with pytest.raises(Exploded, match="part 1 diverged") as caught:
        stepper.run(step, 3, drawn.append)
    assert any("physics thread" in note for note in caught.value.__notes__)
    assert drawn in ([], [0])  # part 1 and later never drawn
    with pytest.raises(PipelineError, match="Exploded: part 1 diverged"):
        stepper.run(step, 3, drawn.append)
    stepper.close()


def test_step_in_parts_a_draw_error_waits_for_the_step_then_reaches_the_caller():
    finished_step = threading.Event()

    def step(finished):
        finished(0)
        time.sleep(0.05)
        finished_step.set()

    def draw(k):
        raise Exploded("the draw failed")

    with hypergl.StepInParts() as stepper:
        with pytest.raises(Exploded, match="the draw failed"):
            stepper.run(step, 2, draw)
        assert finished_step.is_set()  # no step runs on after the error left run()
        with pytest.raises(PipelineError, match="a part's draw raised"):
            stepper.run(step, 2, draw)


@pytest.mark.parametrize("overlapped", [True, False])
def test_step_in_parts_bad_arguments_get_clear_errors(overlapped):
    with hypergl.StepInParts(overlapped=overlapped) as stepper:
        with pytest.raises(ValueError, match="parts must be a positive integer, got 0"):
            stepper.run(lambda finished: None, 0, lambda k: None)
        with pytest.raises(TypeError, match="run needs callables"):
            stepper.run(None, 2, lambda k: None)
        with pytest.raises(ValueError, match=r"finished\(part\) takes a part in 0..1, got 2"):
            stepper.run(lambda finished: finished(2), 2, lambda k: None)


def test_step_in_parts_draws_a_part_while_the_step_still_runs():
    part_zero_drawn = threading.Event()

    def step(finished):
        finished(0)
        # part 1 waits until part 0 has been drawn: only possible side by side
        return part_zero_drawn.wait(timeout=60)

    with hypergl.StepInParts() as stepper:
        waited, _ = stepper.run(step, 2, lambda k: k == 0 and part_zero_drawn.set())
    assert waited is True
    if sysconfig.get_config_var("Py_GIL_DISABLED"):  # the free-threaded suite runs this too
        assert sys._is_gil_enabled() is False


def test_stage_threads_on_two_cores_and_the_defaults_on_more():
    from hypergl.pipelining import stage_threads

    assert [stage_threads(cores) for cores in (1, 2, 3, 16)] == [1, 1, None, None]
    for bad in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match=f"cores must be a positive integer, got {bad!r}"):
            stage_threads(bad)


def test_ask_raster_threads_keeps_what_the_environment_says(monkeypatch):
    from hypergl.pipelining import ask_raster_threads

    monkeypatch.setenv("LP_NUM_THREADS", "3")
    assert ask_raster_threads(1) is False and os.environ["LP_NUM_THREADS"] == "3"
    monkeypatch.delenv("LP_NUM_THREADS")
    assert ask_raster_threads(1) is True and os.environ["LP_NUM_THREADS"] == "1"
    for bad in (-1, "2", None):
        with pytest.raises(ValueError, match="threads must be a non-negative integer"):
            ask_raster_threads(bad)
