"""Bad actions get hypergl_rl's own errors naming them, in every environment (one check)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from hypergl_rl import (
    ActionDtypeError,
    ActionError,
    AsyncReachVectorEnv,
    ReachEnv,
    ReachVectorEnv,
)

pytestmark = pytest.mark.gl


def _ragged(shape):
    return [0.1, [0.2, 0.3]] if len(shape) == 1 else [[0.1, 0.2], [0.3]]


def _with(shape, value, dtype=np.float64):
    array = np.zeros(shape, dtype)
    array.flat[1] = value
    return array


# (id, make(shape) -> actions, error class, what the message must say)
BAD = [
    ("string", lambda shape: "left", ActionDtypeError, "got a str: 'left'"),
    ("bytes", lambda shape: b"\0" * 8, ActionDtypeError, "got a bytes"),
    ("dict", lambda shape: {"x": 0.1}, ActionDtypeError, "got a dict: {'x': 0.1}"),
    ("ragged", _ragged, ActionError, r"must be a rectangular array of shape .* got \[.*0\.3\]"),
    ("complex", lambda shape: np.zeros(shape) + 1j, ActionDtypeError, "dtype complex128"),
    ("objects", lambda shape: np.full(shape, None), ActionDtypeError, "dtype object"),
    ("bool", lambda shape: np.ones(shape, bool), ActionDtypeError, "dtype bool"),
    ("shape", lambda shape: np.zeros((*shape, 1)), ActionError, r"must have shape .* got \("),
    ("nan", lambda shape: _with(shape, np.nan), ActionError, r"must be finite: action.*\] is nan"),
    ("inf", lambda shape: _with(shape, -np.inf), ActionError, r"\] is -inf"),
    ("over float32", lambda shape: _with(shape, 1e39), ActionError, r"\] is 1e\+39"),
]


@pytest.fixture(scope="module", params=["ReachEnv", "ReachVectorEnv", "AsyncReachVectorEnv"])
def env(request):
    made = {"ReachEnv": lambda: ReachEnv(),
            "ReachVectorEnv": lambda: ReachVectorEnv(2),
            "AsyncReachVectorEnv": lambda: AsyncReachVectorEnv(2)}[request.param]()  # fmt: skip
    made.reset(seed=0)
    yield made
    made.close()


@pytest.mark.parametrize(("make", "error", "match"), [b[1:] for b in BAD],
                         ids=[b[0] for b in BAD])  # fmt: skip
def test_bad_actions_are_named(env, make, error, match):
    shape = env.action_space.shape
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a silent cast (ComplexWarning) is no answer either
        with pytest.raises(error, match=match) as info:
            env.step(make(shape))
    assert isinstance(info.value, ActionError)
    env.step(np.zeros(shape, np.float32))  # the env is still usable


def test_good_actions_of_any_real_dtype_are_taken(env):
    shape = env.action_space.shape
    for actions in (np.zeros(shape, np.int64), np.full(shape, 0.5), np.zeros(shape).tolist()):
        env.step(actions)
