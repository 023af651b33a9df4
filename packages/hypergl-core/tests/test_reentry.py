"""A callback a context runs (an external source's acquire()) calling back into that
context raises ContextError inside the callback instead of deadlocking on the lock
the outer call holds."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from hypergl import ContextError, HyperGLError

POSITION = {"source": 0, "type": "f32", "stride": 16, "components": 4, "to": "f32", "at": 0}

CALLBACKS = {
    "finish": lambda ctx: ctx.finish(),
    "release_all": lambda ctx: ctx.release("all"),
    "buffer": lambda ctx: ctx.buffer(size=16),
}


def within(seconds, function):
    """Run `function()` on a daemon thread: a deadlock fails the test instead of hanging it."""
    outcome: dict = {}

    def run():
        try:
            function()
        except BaseException as exc:  # handed back to the test
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the call deadlocked"
    return outcome.get("error")


@pytest.mark.parametrize("callback", sorted(CALLBACKS))
@pytest.mark.parametrize("path", ["upload", "submit"])
def test_an_acquire_callback_calling_into_its_own_context_raises_instead_of_deadlocking(
    ctx, callback, path
):
    if callback == "finish" and ctx.device != "gl":
        pytest.skip("finish reaches the engine only on gl")
    seen = []
    rows = np.zeros((2, 4), np.float32)

    def acquire():
        try:
            CALLBACKS[callback](ctx)
        except ContextError as exc:
            seen.append(exc)
            raise
        return (rows,)

    source = ctx.external_source(acquire, [POSITION], record_size=16)
    records = ctx.buffer(size=64)
    if path == "upload":
        error = within(10, lambda: ctx.upload(source, records))
    else:
        cmd = ctx.command_buffer()
        cmd.upload(source, records)
        cmd.end()
        error = within(10, cmd.submit)
    assert isinstance(error, HyperGLError)
    assert "already in a call on this thread" in str(error)
    assert len(seen) == 1 and "would deadlock" in str(seen[0])
    assert not source.released and not records.released  # the inner release('all') was refused
    ctx.upload(ctx.external_source(lambda: (rows,), [POSITION], record_size=16), records)
