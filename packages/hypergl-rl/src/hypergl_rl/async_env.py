"""`AsyncReachVectorEnv`: the reach vector env stepped by a worker thread, EnvPool-style.

``send(actions)`` hands the actions to the worker and returns at once;
``recv()`` waits for that step's ``(obs, reward, terminated, truncated, info)``.
Between the two the learner works on the previous batch while the worker runs
the task and renders: the VM releases the GIL for the whole render and read
back, so both run at once. gymnasium's names (``step_async``/``step_wait``,
``reset_async``/``reset_wait``) do the same, and ``step()`` is both in one.

One worker thread owns the environment (its context, renderer and task) and
is started at the first call, so forking after making the env is safe. An
environment left open is closed at exit (or when it is garbage collected) by a
finalizer that stops the worker, which closes the context in its own thread:
no leaked OpenGL objects at exit, and a wait bounded by ``EXIT_TIMEOUT``.
Observations and their validity are those of ``ReachVectorEnv`` (the same
values for the same seed and actions): an observation stays valid until the
``send()`` after next, or for good with ``copy=True``.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import weakref
from typing import Any, ClassVar

from gymnasium import Space
from gymnasium.vector import AutoresetMode, VectorEnv

from hypergl.process_safety import check_same_process

from .actions import as_actions
from .env import ReachVectorEnv
from .errors import RLConfigError

#: Seconds a finalizer (at exit) waits for the worker to finish its call and close the env.
EXIT_TIMEOUT = 10.0


def _serve(requests: queue.SimpleQueue, results: queue.SimpleQueue, env: ReachVectorEnv) -> None:
    """The worker: runs the calls sent, then closes the env (a None request).  It holds no
    reference to the AsyncReachVectorEnv, so an env dropped by its user can be collected."""
    while True:
        request = requests.get()
        if request is None:
            break
        method, kwargs = request
        try:
            results.put((True, method(**kwargs)))
        except BaseException as exc:  # handed to recv(), which raises it
            results.put((False, exc))
    env.close()
    results.put((True, None))


def _stop(requests: queue.SimpleQueue, thread: threading.Thread, timeout: float | None) -> None:
    """Ask the worker to close the env and wait for it (up to `timeout` seconds)."""
    requests.put(None)
    if thread is not threading.current_thread():
        thread.join(timeout)


class AsyncStateError(RLConfigError):
    """send()/recv() out of order: a second send before recv, or recv with nothing sent."""


class AsyncReachVectorEnv(VectorEnv):
    """`num_envs` reach environments rendered in a worker thread while the caller learns.

    Takes the keyword arguments of ``ReachVectorEnv``. ``timeout`` (seconds,
    None for no limit) bounds every wait for the worker.
    """

    metadata: ClassVar[dict[str, Any]] = dict(ReachVectorEnv.metadata)

    def __init__(self, num_envs: int, *, timeout: float | None = None, **kwargs: Any) -> None:
        if timeout is not None and (isinstance(timeout, bool) or not timeout > 0):
            raise RLConfigError(f"timeout must be None or a number of seconds > 0, got "
                                f"{timeout!r}")  # fmt: skip
        # lazy: no context until the worker runs
        self.env: ReachVectorEnv = ReachVectorEnv(num_envs, **kwargs)
        self.num_envs: int = self.env.num_envs
        self.metadata = dict(self.env.metadata)
        self.autoreset_mode: AutoresetMode = self.env.autoreset_mode
        self.render_mode: str | None = self.env.render_mode
        self.single_observation_space: Space[Any] = self.env.single_observation_space
        self.single_action_space: Space[Any] = self.env.single_action_space
        self.observation_space: Space[Any] = self.env.observation_space
        self.action_space: Space[Any] = self.env.action_space
        self.timeout: float | None = timeout
        self._requests: queue.SimpleQueue = queue.SimpleQueue()
        self._results: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._finalizer: weakref.finalize | None = None
        self._owner_pid = os.getpid()
        self._waiting: str | None = None  # "reset" or "step" while a call is in flight

    # --- the worker ------------------------------------------------------------------------
    def _submit(self, what: str, method: Any, **kwargs: Any) -> None:
        check_same_process(self._owner_pid, "this AsyncReachVectorEnv")
        if self.closed:
            raise AsyncStateError("the environment is closed")
        if self._waiting is not None:
            raise AsyncStateError(f"a {self._waiting} is in flight: call recv() (or "
                                  f"{self._waiting}_wait()) before sending another")  # fmt: skip
        if self._thread is None:
            self._thread = threading.Thread(
                target=_serve,
                name="hypergl-rl-env",
                daemon=True,
                args=(self._requests, self._results, self.env),
            )
            self._thread.start()
            # Runs at exit (or when this env is collected) unless close() ran first.
            self._finalizer = weakref.finalize(self, _stop, self._requests, self._thread,
                                               EXIT_TIMEOUT)  # fmt: skip
        self._requests.put((method, kwargs))
        self._waiting = what

    def _wait(self, what: str | None) -> Any:
        if self._waiting is None or (what is not None and self._waiting != what):
            expected = f"{what}_async()" if what else "send()"
            raise AsyncStateError(f"nothing to receive: call {expected} first")
        try:
            ok, value = self._results.get(timeout=self.timeout)
        except queue.Empty:
            raise TimeoutError(
                f"the environment's worker did not answer within {self.timeout} s; it is "
                f"still running the {self._waiting}"
            ) from None
        self._waiting = None
        if not ok:
            raise value
        return value

    # --- EnvPool's names ---------------------------------------------------------------------
    def send(self, actions: Any) -> None:
        """Start a step with `actions` (checked here, so bad actions raise at once)."""
        actions = as_actions(actions, self.action_space.shape)
        if self.env.task is not None:
            actions = self.env.task.check_actions(actions)
        self._submit("step", self.env.step, actions=actions)

    def recv(self) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """The result of the reset or step in flight: a step's 5-tuple, a reset's (obs, info)."""
        return self._wait(None)

    def async_reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> None:
        self._submit("reset", self.env.reset, seed=seed, options=options)

    # --- gymnasium's names -------------------------------------------------------------------
    def reset_async(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.async_reset(seed=seed, options=options)

    def reset_wait(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        return self._wait("reset")

    def step_async(self, actions: Any) -> None:
        self.send(actions)

    def step_wait(self, **kwargs: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        return self._wait("step")

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        self.reset_async(seed=seed, options=options)
        return self.reset_wait()

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        self.step_async(actions)
        return self.step_wait()

    def render(self) -> Any:
        return self.env.render()

    def close_extras(self, **kwargs: Any) -> None:
        if self._thread is None or os.getpid() != self._owner_pid:
            self.env.close()
            return
        if self._waiting is not None:
            with contextlib.suppress(queue.Empty):
                self._results.get(timeout=self.timeout)  # let the call in flight finish
            self._waiting = None
        if self._finalizer is not None:
            self._finalizer.detach()
        _stop(self._requests, self._thread, self.timeout)
        self._thread = None
