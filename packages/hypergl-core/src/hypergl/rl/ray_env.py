"""`RayVectorEnv`: reach environments in Ray actors, each with its own context, renderer and task.

``RayVectorEnv(num_workers=2, envs_per_worker=256)`` is one gymnasium VectorEnv
of 512 environments; worker w steps environments ``w*256 .. w*256+255`` in a
``ReachVectorEnv`` of its own (made in the actor's process: its own OpenGL
context and, with ``num_gpus_per_worker``, the GPU Ray gave it). Observations
come back as NumPy arrays through Ray's object store (one (256, 84, 84, 3)
array per worker and step, not a Python object per environment) and are copied
into the driver's batch. ``step_async``/``step_wait`` (and EnvPool's
``send``/``recv``) keep every worker busy while the learner works.

``reset(seed=s)`` seeds worker w with the w-th child of ``SeedSequence(s)``:
the same seed gives the same observations whatever the cluster. A worker that
dies (or does not answer within ``timeout`` seconds) is replaced by a new
actor; its environments end (``truncated``, reward 0, the last observation the
driver had) with ``infos["worker_failed"]`` set and the error in
``infos["worker_error"]``, and start new episodes on the next step (on the same
step with ``autoreset_mode="same_step"``). No call waits for a dead worker.

Needs Ray (``pip install 'hypergl-core[ray]'``) and a running cluster, or
starts a local one (``ray.init()``) at the first reset.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

import numpy as np

try:
    import ray
    from ray.exceptions import GetTimeoutError, RayError, RayTaskError
except ImportError as _missing:  # pragma: no cover - exercised only without Ray
    raise ImportError(
        f"hypergl.rl.RayVectorEnv needs Ray ({_missing}); pip install 'hypergl-core[ray]'"
    ) from _missing

import contextlib

from gymnasium import Space
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .env import ReachVectorEnv, autoreset_mode_of
from .errors import ActionError, RLConfigError, positive_int


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
        return self.env.reset(seed=seed, options=options)

    def step(self, actions: np.ndarray) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        return self.env.step(actions)

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
        self._buffers = (np.zeros(shape, np.uint8), np.zeros(shape, np.uint8))
        self._current = 0
        self.workers: list[Any] = []
        self.restarts: list[int] = [0] * self.num_workers
        self._seeds: list[int | None] = [None] * self.num_workers
        self._needs_reset = [False] * self.num_workers
        self._in_flight: tuple[str, list] | None = None

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
        self._in_flight = ("reset", refs)

    def reset_wait(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        refs = self._take("reset")
        self._current ^= 1
        obs = self._buffers[self._current]
        infos: list[dict] = []
        for w, (answer, error) in enumerate(self._gather(refs)):
            if error is not None:  # a worker died while resetting: a new one, reset at once
                self._replace(w)
                answer = self._get_or_explain(self.workers[w].reset.remote(self._seeds[w], None))
            obs[self._slice(w)] = answer[0]
            infos.append(answer[1])
        return (obs.copy() if self.copy else obs), self._merge(infos)

    def step_async(self, actions: Any) -> None:
        self._check_idle()
        if not self.workers:
            raise RLConfigError("call reset() before step()")
        actions = np.asarray(actions, np.float32)
        if actions.shape != self.action_space.shape:
            raise ActionError(f"actions must have shape {self.action_space.shape}, got "
                              f"{actions.shape}")  # fmt: skip
        refs = []
        for w, worker in enumerate(self.workers):
            if self._needs_reset[w]:  # the NEXT_STEP reset of a replaced worker
                seed = self._worker_seed(self._seeds[w], w) if self._seeds[w] is not None else None
                refs.append(worker.reset.remote(seed, None))
            else:
                refs.append(worker.step.remote(actions[self._slice(w)]))
        self._in_flight = ("step", refs)

    def step_wait(self, **kwargs: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        refs = self._take("step")
        previous = self._buffers[self._current]
        self._current ^= 1
        obs = self._buffers[self._current]
        n = self.num_envs
        reward = np.zeros(n, np.float32)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        failed = np.zeros(n, bool)
        errors = np.full(n, None, dtype=object)
        infos: list[dict] = []
        for w, (answer, error) in enumerate(self._gather(refs)):
            part = self._slice(w)
            if error is None and self._needs_reset[w]:  # answered the reset it was sent
                self._needs_reset[w] = False
                obs[part] = answer[0]
                infos.append(answer[1])
                continue
            if error is None:
                obs[part], reward[part], terminated[part], truncated[part] = answer[:4]
                infos.append(answer[4])
                continue
            failed[part], truncated[part] = True, True
            errors[part] = f"{type(error).__name__}: {error}"
            self._replace(w)
            if self.autoreset_mode == AutoresetMode.SAME_STEP:
                reset_obs, info = self._get_or_explain(
                    self.workers[w].reset.remote(self._worker_seed(self._seeds[w], w), None)
                )
                obs[part] = reset_obs
                infos.append(info)
            else:  # the episode ends on the last frame the driver saw; it restarts next step
                obs[part] = previous[part]
                self._needs_reset[w] = True
                infos.append({})
        info = self._merge(infos)
        if failed.any():
            info.update(worker_failed=failed, _worker_failed=failed.copy(),
                        worker_error=errors, _worker_error=failed.copy())  # fmt: skip
        return (obs.copy() if self.copy else obs), reward, terminated, truncated, info

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
        """Same as :meth:`step_wait`."""
        return self.step_wait(**kwargs)

    def _check_idle(self) -> None:
        if self._in_flight is not None:
            raise RLConfigError(f"a {self._in_flight[0]} is in flight: call "
                                f"{self._in_flight[0]}_wait() first")  # fmt: skip

    def _take(self, what: str) -> list:
        if self._in_flight is None or self._in_flight[0] != what:
            raise RLConfigError(f"nothing to wait for: call {what}_async() first")
        refs = self._in_flight[1]
        self._in_flight = None
        return refs

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
            return self._buffers[self._current].copy()
        return None

    def close_extras(self, **kwargs: Any) -> None:
        for worker in self.workers:
            with contextlib.suppress(RayError):
                ray.kill(worker, no_restart=True)
        self.workers = []
        self._in_flight = None
