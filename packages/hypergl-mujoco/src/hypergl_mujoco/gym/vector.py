"""``VectorPixelObservations``: every sub-environment of a synchronous vector env rendered in
one submit per step.

Autoreset (gymnasium 1.x): with ``NEXT_STEP`` and ``DISABLED`` each step's render shows what
the step returns (a reset happens inside a later ``step``/``reset`` call, which renders
again). With ``SAME_STEP`` the vector env resets a finished sub-environment inside the same
``step`` call, before we can render: so each sub-environment is wrapped to copy its
``MjData`` into a standing copy (``mj_copyData``: fixed addresses, so the renderer's sync
stays recorded) when its episode ends, and on a step where any ended, one more submit
renders those copies into ``info["final_obs"]``.

In parts (``parts=`` above 1; default 1: one render after the step): the vector env steps
its sub-environments one after the other, each done for this step before the next one
starts, so its step runs on a physics thread (:class:`hypergl.StepInParts`) while the
caller's thread renders the sub-environments already stepped, a part (a contiguous run of
them, a renderer each) at a time. Each sub-environment is wrapped to say, when the vector
env first calls it (its step or its reset), that the part before it is done: that holds for
every autoreset mode, a same-step reset included (it happens before the vector env moves
on). The pixels are those of the same parts rendered after the step (``overlapped=False``);
against one render of every world they may differ by 1 in a few values (a world's tile sits
elsewhere in another framebuffer, and llvmpipe's coverage rounds the viewport's offset),
which is one reason it is not the default. The other: measured on 2 cores
(benchmarks/overlap.py --only vector), the second submit costs more than the overlap gives:
16 sub-environments at 84 x 84, HalfCheetah-v5 0.77-0.81x (physics 2.1 ms of a 16.4 ms
step), Humanoid-v5 0.81x (8.1 of 23.2 ms).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import mujoco
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

import hypergl

from ..errors import EnvError
from ..renderer import BatchRenderer
from .pixels import PixelLayout, image_spaces, mujoco_parts, render_camera


class _PartMarks:
    """The ``finished`` callback of the step in flight (None outside of one)."""

    def __init__(self) -> None:
        self.finished: Callable[[int], None] | None = None


class _SubEnvHooks(gym.Wrapper):
    """A sub-environment as the vector env calls it: with `final`, its MjData copied there
    when an episode ends (before the vector env's same-step reset); with `opens_part` k,
    part k - 1 marked done when the vector env first calls this one (step or reset)."""

    def __init__(self, env: gym.Env, final: mujoco.MjData | None, opens_part: int | None,
                 marks: _PartMarks) -> None:  # fmt: skip
        super().__init__(env)
        self._model, self._data = mujoco_parts(env)
        self.final = final
        self._opens_part = opens_part
        self._marks = marks

    def _mark(self) -> None:
        if self._opens_part is not None and self._marks.finished is not None:
            self._marks.finished(self._opens_part - 1)

    def step(self, action: Any) -> Any:
        self._mark()
        result = self.env.step(action)
        if self.final is not None and (result[2] or result[3]):
            mujoco.mj_copyData(self.final, self._model, self._data)
        return result

    def reset(self, **kwargs: Any) -> Any:
        self._mark()
        return self.env.reset(**kwargs)


class VectorPixelObservations(VectorWrapper):
    """Pixel observations for a ``SyncVectorEnv`` of MuJoCo envs (``gym.make_vec(...,
    vectorization_mode="sync")``), all sub-environments in one submit; the options are
    :class:`~hypergl_mujoco.PixelObservations`' and the observation is batched over the
    sub-environments. The camera (None: what the first sub-environment's ``render()``
    uses) and the geometry are the first sub-environment's model's.

    ``parts`` (default 1: render after the step, in the caller's thread): a step renders
    its sub-environments in that many parts, each while the later ones' physics runs on a
    thread of its own (see the module doc for what it gives and how the pixels compare).
    ``overlapped=False`` renders the same parts after the step (for comparison)."""

    def __init__(
        self,
        env: gym.vector.VectorEnv,
        width: int = 84,
        height: int = 84,
        camera: Any = None,
        outputs: Sequence[str] = ("rgb",),
        *,
        render_only: bool = True,
        render_key: str = "pixels",
        obs_key: str = "state",
        context: hypergl.Context | None = None,
        parts: int = 1,
        overlapped: bool = True,
    ) -> None:
        if not isinstance(env, gym.vector.VectorEnv):
            raise EnvError(f"VectorPixelObservations wraps a vector env (gym.make_vec(..., "
                           f"vectorization_mode='sync')), got {type(env).__name__}: for one "
                           "env, use PixelObservations")  # fmt: skip
        if isinstance(parts, bool) or not isinstance(parts, int) or parts < 1:
            raise EnvError(f"parts must be a positive integer, got {parts!r}")
        if not isinstance(overlapped, bool):
            raise EnvError(f"overlapped must be True or False, got {overlapped!r}")
        super().__init__(env)
        base = env.unwrapped
        if not isinstance(base, SyncVectorEnv):
            raise EnvError(f"{type(base).__name__}: the sub-environments must be in this "
                           "process, a SyncVectorEnv (gym.make_vec(..., "
                           "vectorization_mode='sync'))")  # fmt: skip
        models = [mujoco_parts(sub) for sub in base.envs]
        model = models[0][0]
        self._datas = [data for _, data in models]  # one list: the renderer syncs it as bound
        # a camera name, id or mujoco.MjvCamera, as BatchRenderer takes it
        self.camera: Any = render_camera(base.envs[0], camera)
        self._options: dict[str, Any] = {"cameras": [self.camera], "width": width,
                                         "height": height, "outputs": outputs}  # fmt: skip
        self.renderer: BatchRenderer = BatchRenderer(model, len(self._datas), context=context,
                                                     **self._options)  # fmt: skip
        try:
            images = image_spaces(model, width, height, self.renderer.outputs)
            self._layout = PixelLayout(env.single_observation_space, images, render_only,
                                       render_key, obs_key)  # fmt: skip
        except BaseException:
            self.renderer.close()
            raise
        self.single_observation_space = self._layout.space
        self.observation_space = batch_space(self._layout.space, self.num_envs)
        self._finals: list[mujoco.MjData] = []
        self._final_renderer: BatchRenderer | None = None
        if base.autoreset_mode == AutoresetMode.SAME_STEP:
            self._finals = [mujoco.MjData(m) for m, _ in models]
        # Contiguous runs of sub-environments, in the order the vector env steps them.
        runs = np.array_split(np.arange(len(self._datas)), min(parts, len(self._datas)))
        self._parts = [[self._datas[i] for i in run] for run in runs]  # a part's MjData
        self.overlapped: bool = overlapped
        self._part_renderers: list[BatchRenderer] = []
        self._stepper: hypergl.StepInParts | None = None
        self._marks = _PartMarks()
        opens = {int(run[0]): k for k, run in enumerate(runs) if k}
        if self._finals or len(self._parts) > 1:
            base.envs = [_SubEnvHooks(sub, self._finals[i] if self._finals else None,
                                      opens.get(i), self._marks)
                         for i, sub in enumerate(base.envs)]  # fmt: skip

    @property
    def datas(self) -> list[mujoco.MjData]:
        """The sub-environments' MjData, the list the renderer is bound to (render it as
        it is: another list re-records the renderer's program)."""
        return self._datas

    def _images(self, renderer: BatchRenderer, data: Any) -> dict[str, np.ndarray]:
        result = renderer.render(data)
        return {name: result[name][:, 0] for name in renderer.outputs}

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._close_stepper()  # a step that raised broke it: a reset starts afresh
        observations, infos = self.env.reset(seed=seed, options=options)
        images = self._images(self.renderer, self._datas)
        return self._layout.observation(observations, images), infos

    def _step_in_parts(self, actions: Any) -> tuple[tuple[Any, ...], dict[str, np.ndarray]]:
        """The vector env's step on the physics thread, each part rendered once stepped."""
        if not self._part_renderers:  # the first step in parts: made once, kept
            self._part_renderers = [
                BatchRenderer(datas[0].model, len(datas), context=self.renderer.context,
                              **self._options)
                for datas in self._parts
            ]  # fmt: skip
        if self._stepper is None:
            self._stepper = hypergl.StepInParts(overlapped=self.overlapped,
                                                name="hypergl-vector-physics")  # fmt: skip

        def step(finished: Callable[[int], None]) -> tuple[Any, ...]:
            self._marks.finished = finished
            try:
                return self.env.step(actions)
            finally:
                self._marks.finished = None

        def draw(part: int) -> dict[str, np.ndarray]:
            return self._images(self._part_renderers[part], self._parts[part])

        result, drawn = self._stepper.run(step, len(self._parts), draw)
        return result, {name: np.concatenate([images[name] for images in drawn])
                        for name in self.renderer.outputs}  # fmt: skip

    def step(self, actions: Any) -> Any:
        if len(self._parts) > 1:
            result, images = self._step_in_parts(actions)
        else:
            result = self.env.step(actions)
            images = self._images(self.renderer, self._datas)
        observations, rewards, terminations, truncations, infos = result
        pixels = self._layout.observation(observations, images)
        ended = np.flatnonzero(infos.get("_final_obs", ())) if self._finals else ()
        if len(ended):
            if self._final_renderer is None:  # the first episode end: made once, kept
                self._final_renderer = BatchRenderer(self._finals[0].model, len(self._finals),
                                                     context=self.renderer.context,
                                                     **self._options)  # fmt: skip
            finals = self._images(self._final_renderer, self._finals)
            for i in ended:
                infos["final_obs"][i] = self._layout.observation(
                    infos["final_obs"][i], {name: image[i] for name, image in finals.items()}
                )
        return pixels, rewards, terminations, truncations, infos

    def _close_stepper(self) -> None:
        if self._stepper is not None:
            stepper, self._stepper = self._stepper, None
            with contextlib.suppress(hypergl.HyperGLError):  # its error was raised by step
                stepper.close()

    def close(self, **kwargs: Any) -> None:
        self._close_stepper()
        for renderer in self._part_renderers:
            renderer.close()
        if self._final_renderer is not None:
            self._final_renderer.close()
        self.renderer.close()
        super().close(**kwargs)

    def __enter__(self) -> VectorPixelObservations:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
