"""`RayVectorEnv`: reach environments in Ray actors, each with its own context, renderer and task.

``RayVectorEnv(num_workers=2, envs_per_worker=256)`` is one gymnasium VectorEnv
of 512 environments; worker w steps environments ``w*256 .. w*256+255`` in a
``ReachVectorEnv`` of its own (made in the actor's process: its own OpenGL
context and, with ``num_gpus_per_worker``, the GPU Ray gave it). Observations
come back as NumPy arrays through Ray's object store (one (256, 84, 84, 3)
array per worker and step, not a Python object per environment): the worker
reads back into its own array, Ray copies it once into shared memory, and the
driver copies it from there into its batch. ``step_async``/``step_wait`` (and
EnvPool's ``send``/``recv``) keep every worker busy while the learner works,
and with ``max_in_flight=k`` up to k steps can be sent before the first is
received: the workers render step k+1 while the driver consumes step k (the
actions sent ahead cannot depend on the observations still in flight).

``reset(seed=s)`` seeds worker w with the w-th child of ``SeedSequence(s)``:
the same seed gives the same observations whatever the cluster. A worker that
dies (or does not answer within ``timeout`` seconds) is replaced by a new
actor; its environments end (``truncated``, reward 0, the last observation the
driver had) with ``infos["worker_failed"]`` set and the error in
``infos["worker_error"]``, and start new episodes on the next step (on the same
step with ``autoreset_mode="same_step"``). No call waits for a dead worker.

Needs Ray (``pip install 'hypergl-rl[ray]'``) and a running cluster, or
starts a local one (``ray.init()``) at the first reset.
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from typing import Any, ClassVar

import numpy as np

try:
    import ray
    from ray.exceptions import GetTimeoutError, RayError, RayTaskError
except ImportError as _missing:  # pragma: no cover - exercised only without Ray
    raise ImportError(
        f"hypergl_rl.RayVectorEnv needs Ray ({_missing}); pip install 'hypergl-rl[ray]'"
    ) from _missing

from gymnasium import Space
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .actions import as_actions
from .env import ReachVectorEnv, autoreset_mode_of
from .errors import RLConfigError, positive_int


class _Sent:
    """One step in flight: its actions and, per worker, the ref and whether it is a reset."""

    __slots__ = ("actions", "refs", "resets")

    def __init__(self, actions: np.ndarray, num_workers: int) -> None:
        self.actions = actions
        self.refs: list[Any] = [None] * num_workers
        self.resets: list[bool] = [False] * num_workers


# Ray (2.60) copies a buffer over 1 MiB into its object store with six threads it starts for
# that one copy; on a machine of few cores that costs more than it saves, and smaller buffers
# are copied with one memcpy. Measured at E=256, 84x84 RGB on 2 cores: ~10% more env-frames/s.
_PIECE_BYTES = 1 << 20


def _pieces(obs: np.ndarray) -> list[np.ndarray]:
    """`obs` as views of at most _PIECE_BYTES each (whole frames), for Ray to serialize."""
    rows = max(1, _PIECE_BYTES // max(1, obs[0].nbytes))
    return [obs[i : i + rows] for i in range(0, len(obs), rows)]


class RayEnvWorker:
    """One actor's environments: a ReachVectorEnv made in the actor's own process."""

    def __init__(self, num_envs: int, env_kwargs: dict[str, Any]) -> None:
        kwargs = dict(env_kwargs)
        gpus = ray.get_gpu_ids() if ray.is_initialized() else []
        if gpus and "device_index" not in kwargs and "context" not in kwargs:
            kwargs["device_index"] = int(gpus[0])  # the EGL device of the GPU Ray gave us
        self.env: ReachVectorEnv = ReachVectorEnv(num_envs, **kwargs)

    def reset(
        self, seed: int | None, options: dict[str, Any] | None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        return _pieces(obs), info

    def step(self, actions: np.ndarray) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(actions)
        if "final_obs" in info:  # one (n, H, W, 3) array, not n pickled arrays
            info["final_obs"] = np.stack(list(info["final_obs"][info["_final_obs"]]))
        return _pieces(obs), reward, terminated, truncated, info

    def pid(self) -> int:
        return os.getpid()

    def close(self) -> None:
        self.env.close()


class RayVectorEnv(VectorEnv):
    """`num_workers` Ray actors of `envs_per_worker` reach environments each, as one VectorEnv.

    ``num_cpus_per_worker`` / ``num_gpus_per_worker`` (fractions allowed) are the
    actors' Ray resources; other keywords go to each worker's ReachVectorEnv
    (``width``, ``height``, ``max_steps``, ``task``...). ``timeout`` bounds every wait
    for a worker (seconds); a worker that misses it counts as failed.
    """

    metadata: ClassVar[dict[str, Any]] = dict(ReachVectorEnv.metadata)

    def __init__(
        self,
        num_workers: int = 2,
        envs_per_worker: int = 64,
        *,
        num_cpus_per_worker: float = 1.0,
        num_gpus_per_worker: float = 0.0,
        timeout: float = 120.0,
        max_in_flight: int = 1,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        copy: bool = False,
        **env_kwargs: Any,
    ) -> None:
        self.num_workers: int = positive_int(num_workers, "num_workers")
        self.envs_per_worker: int = positive_int(envs_per_worker, "envs_per_worker")
        for name, value in (("num_cpus_per_worker", num_cpus_per_worker),
                            ("num_gpus_per_worker", num_gpus_per_worker)):  # fmt: skip
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise RLConfigError(f"{name} must be a number >= 0, got {value!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            raise RLConfigError(f"timeout must be a number of seconds > 0, got {timeout!r}")
        for key in ("context", "copy", "autoreset_mode"):
            if key in env_kwargs:
                raise RLConfigError(f"{key}= cannot be sent to a Ray worker")
        self.max_in_flight: int = positive_int(max_in_flight, "max_in_flight")
        self.autoreset_mode: AutoresetMode = autoreset_mode_of(autoreset_mode)
        self.num_envs: int = self.num_workers * self.envs_per_worker
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        # The worker's env checks its arguments here, in the driver, before any actor starts.
        probe = ReachVectorEnv(self.envs_per_worker, **env_kwargs)
        self.render_mode: str | None = probe.render_mode
        self.single_observation_space: Space[Any] = probe.single_observation_space
        self.single_action_space: Space[Any] = probe.single_action_space
        batched = self.num_envs
        self.observation_space: Space[Any] = batch_space(self.single_observation_space, batched)
        self.action_space: Space[Any] = batch_space(self.single_action_space, batched)
        probe.close()
        self._env_kwargs = {**env_kwargs, "autoreset_mode": self.autoreset_mode.value}
        self._resources = {"num_cpus": num_cpus_per_worker, "num_gpus": num_gpus_per_worker}
        self.timeout: float = float(timeout)
        self.copy: bool = bool(copy)
        shape = (self.num_envs, *self.single_observation_space.shape)
        # The workers' observations are gathered into one of these, alternately: an
        # observation stays valid for one more step.
        self._buffers = (np.zeros(shape, np.uint8), np.zeros(shape, np.uint8))
        self._current = 0
        self._last_obs: np.ndarray = self._buffers[0]
        self.workers: list[Any] = []
        self.restarts: list[int] = [0] * self.num_workers
        self._seeds: list[int | None] = [None] * self.num_workers
        self._needs_reset = [False] * self.num_workers
        self._resetting: list | None = None  # the reset's refs while one is in flight
        self._sent: deque[_Sent] = deque()  # the steps in flight, oldest first

    # --- actors ------------------------------------------------------------------------------
    def _start(self) -> None:
        if self.workers:
            return
        if not ray.is_initialized():
            ray.init()
        # A request no node can ever meet would leave the actors pending until the timeout.
        cluster = ray.cluster_resources()
        for name, key in (("num_cpus", "CPU"), ("num_gpus", "GPU")):
            need = self._resources[name]
            if need > 0 and cluster.get(key, 0) < need:
                raise RLConfigError(f"{name}_per_worker={need} but the Ray cluster has "
                                    f"{cluster.get(key, 0)} {key}s in all; lower it (0 for "
                                    f"none) or add nodes with {key}s")  # fmt: skip
        self.workers = [self._new_worker() for _ in range(self.num_workers)]

    def _new_worker(self) -> Any:
        actor = ray.remote(RayEnvWorker).options(**self._resources, max_restarts=0)
        return actor.remote(self.envs_per_worker, self._env_kwargs)

    def _slice(self, worker: int) -> slice:
        return slice(worker * self.envs_per_worker, (worker + 1) * self.envs_per_worker)

    def _worker_seed(self, seed: int | None, worker: int) -> int | None:
        if seed is None:
            return None
        sequence = np.random.SeedSequence(seed, spawn_key=(worker, self.restarts[worker]))
        return int(sequence.generate_state(1)[0])

    def _gather(self, refs: list) -> list[tuple[Any, BaseException | None]]:
        """Every worker's answer, or the error that stands for it (a dead or silent actor)."""
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=self.timeout)
        ready_set = set(ready)
        answers: list[tuple[Any, BaseException | None]] = []
        for ref in refs:
            if ref not in ready_set:
                answers.append((None, GetTimeoutError(f"no answer within {self.timeout} s")))
                continue
            try:
                answers.append((ray.get(ref), None))
            except RayTaskError as exc:  # our code raised in the worker (bad actions...): re-raise
                raise exc.as_instanceof_cause() from None
            except RayError as exc:  # the actor died: killed, crashed, out of memory
                answers.append((None, exc))
        return answers

    def _get_or_explain(self, ref: Any) -> Any:
        """A new worker's first answer; a TimeoutError that says why when it never comes."""
        try:
            return ray.get(ref, timeout=self.timeout)
        except GetTimeoutError:
            raise TimeoutError(
                f"a Ray worker did not answer within {self.timeout} s: the cluster may lack the "
                f"resources it asks for ({self._resources}; free now: "
                f"{ray.available_resources()}); lower num_cpus_per_worker / num_gpus_per_worker "
                f"or add nodes"
            ) from None

    def _replace(self, worker: int) -> None:
        with contextlib.suppress(RayError):
            ray.kill(self.workers[worker], no_restart=True)
        self.restarts[worker] += 1
        self.workers[worker] = self._new_worker()

    # --- the VectorEnv API ------------------------------------------------------------------
    def reset_async(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._check_idle()
        self._start()
        self._seeds = [self._worker_seed(seed, w) for w in range(self.num_workers)]
        refs = [w.reset.remote(s, options) for w, s in zip(self.workers, self._seeds, strict=True)]
        self._needs_reset = [False] * self.num_workers
        self._resetting = refs

    def reset_wait(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        if self._resetting is None:
            raise RLConfigError("nothing to wait for: call reset_async() first")
        refs, self._resetting = self._resetting, None
        parts: list[list[np.ndarray]] = []
        infos: list[dict] = []
        for w, (answer, error) in enumerate(self._gather(refs)):
            if error is not None:  # a worker died while resetting: a new one, reset at once
                self._replace(w)
                answer = self._get_or_explain(self.workers[w].reset.remote(self._seeds[w], None))
            parts.append(answer[0])
            infos.append(answer[1])
        return self._batch(parts), self._merge(infos)

    def step_async(self, actions: Any) -> None:
        if self._resetting is not None:
            raise RLConfigError("a reset is in flight: call reset_wait() first")
        if len(self._sent) >= self.max_in_flight:
            raise RLConfigError(f"{len(self._sent)} step(s) in flight, the most max_in_flight="
                                f"{self.max_in_flight} allows: call step_wait() first")  # fmt: skip
        if not self.workers:
            raise RLConfigError("call reset() before step()")
        actions = as_actions(actions, self.action_space.shape)
        sent = _Sent(actions, self.num_workers)
        for w in range(self.num_workers):
            self._submit(sent, w)
        self._sent.append(sent)

    def _submit(self, sent: _Sent, w: int) -> None:
        """Send worker w its part of a step: its actions, or the reset a replaced worker owes."""
        if self._needs_reset[w]:  # the NEXT_STEP reset of a replaced worker
            self._needs_reset[w] = False
            seed = self._worker_seed(self._seeds[w], w) if self._seeds[w] is not None else None
            sent.refs[w], sent.resets[w] = self.workers[w].reset.remote(seed, None), True
        else:
            sent.refs[w] = self.workers[w].step.remote(sent.actions[self._slice(w)])
            sent.resets[w] = False

    def step_wait(self, **kwargs: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        if not self._sent:
            raise RLConfigError("nothing to wait for: call step_async() first")
        sent = self._sent.popleft()
        previous = self._last_obs
        n = self.num_envs
        parts: list[list[np.ndarray]] = []
        reward = np.zeros(n, np.float32)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        failed = np.zeros(n, bool)
        errors = np.full(n, None, dtype=object)
        infos: list[dict] = []
        for w, (answer, error) in enumerate(self._gather(sent.refs)):
            part = self._slice(w)
            if error is None and sent.resets[w]:  # answered the reset it was sent
                parts.append(answer[0])
                infos.append(answer[1])
                continue
            if error is None:
                parts.append(answer[0])
                reward[part], terminated[part], truncated[part] = answer[1:4]
                infos.append(self._final_obs_objects(answer[4]))
                continue
            failed[part], truncated[part] = True, True
            errors[part] = f"{type(error).__name__}: {error}"
            self._replace(w)
            if self.autoreset_mode == AutoresetMode.SAME_STEP:
                reset_obs, info = self._get_or_explain(
                    self.workers[w].reset.remote(self._worker_seed(self._seeds[w], w), None)
                )
                parts.append(reset_obs)
                infos.append(info)
            else:  # the episode ends on the last frame the driver saw; it restarts next step
                parts.append([previous[part]])
                self._needs_reset[w] = True
                infos.append({})
            for later in self._sent:  # the steps sent after this one go to the new worker
                self._submit(later, w)
        info = self._merge(infos)
        if failed.any():
            info.update(worker_failed=failed, _worker_failed=failed.copy(),
                        worker_error=errors, _worker_error=failed.copy())  # fmt: skip
        return self._batch(parts), reward, terminated, truncated, info

    def _batch(self, parts: list[list[np.ndarray]]) -> np.ndarray:
        """The workers' observations (each a list of pieces) copied into one batch."""
        self._current ^= 1
        obs = self._buffers[self._current]
        row = 0
        for pieces in parts:
            for piece in pieces:
                obs[row : row + len(piece)] = piece
                row += len(piece)
        self._last_obs = obs
        return obs.copy() if self.copy else obs

    def _final_obs_objects(self, info: dict[str, Any]) -> dict[str, Any]:
        """A worker's dense final_obs (SAME_STEP) as gymnasium's array of per-env objects."""
        if "final_obs" in info:
            objects = np.full(self.envs_per_worker, None, dtype=object)
            for env, frame in zip(np.flatnonzero(info["_final_obs"]), info["final_obs"],
                                  strict=True):  # fmt: skip
                objects[env] = frame
            info["final_obs"] = objects
        return info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        self.reset_async(seed=seed, options=options)
        return self.reset_wait()

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        self.step_async(actions)
        return self.step_wait()

    def send(self, actions: Any) -> None:
        """Same as :meth:`step_async`."""
        self.step_async(actions)

    def recv(self, **kwargs: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Same as :meth:`step_wait`: the oldest step in flight."""
        return self.step_wait(**kwargs)

    def _check_idle(self) -> None:
        if self._resetting is not None:
            raise RLConfigError("a reset is in flight: call reset_wait() first")
        if self._sent:
            raise RLConfigError(f"{len(self._sent)} step(s) in flight: call step_wait() "
                                f"first")  # fmt: skip

    def _merge(self, infos: list[dict]) -> dict:
        """The workers' info dicts (arrays over their sub-batches) as one dict over all envs.

        A worker without a key (a failed one, or one where no episode ended) gets the
        empty value there (0, False, None) and, for a key without its own mask, a
        False in ``info["_key"]``, gymnasium's way of saying "no value here"."""
        merged: dict[str, Any] = {}
        keys = list(dict.fromkeys(key for info in infos for key in info))
        for key in keys:
            values = [info.get(key) for info in infos]
            template = next(value for value in values if value is not None)
            if isinstance(template, dict):
                merged[key] = self._merge([value or {} for value in values])
                continue
            template = np.asarray(template)
            empty = (np.full(template.shape, None, object) if template.dtype == object
                     else np.zeros_like(template))  # fmt: skip
            merged[key] = np.concatenate([empty if v is None else np.asarray(v) for v in values])
            if any(v is None for v in values) and not key.startswith("_") and f"_{key}" not in keys:
                mask = np.ones(self.num_envs, bool)
                for w, value in enumerate(values):
                    if value is None:
                        mask[self._slice(w)] = False
                merged[f"_{key}"] = mask
        return merged

    def render(self) -> np.ndarray | None:
        if self.render_mode == "rgb_array":
            return self._last_obs.copy()
        return None

    def close_extras(self, **kwargs: Any) -> None:
        for worker in self.workers:
            with contextlib.suppress(RayError):
                ray.kill(worker, no_restart=True)
        self.workers = []
        self._resetting = None
        self._sent.clear()
