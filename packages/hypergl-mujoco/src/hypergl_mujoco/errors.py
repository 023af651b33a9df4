"""Exceptions of hypergl-mujoco: one class per kind of bad input, each under HyperGLError
and the builtin it is a kind of. A closed context raises hypergl's own ``ContextError``."""

from __future__ import annotations

from hypergl import HyperGLError, ResourceError


class MujocoBridgeError(HyperGLError):
    """Base class of the errors hypergl-mujoco raises on purpose."""


class MujocoVersionError(MujocoBridgeError, ImportError):
    """MuJoCo is missing, broken, or of a version hypergl-mujoco does not support (the
    message names the version found, the range needed and how to install it)."""


class ModelMismatchError(MujocoBridgeError, ValueError):
    """Data that does not belong to the renderer's model (another model, other sizes)."""


class DataError(MujocoBridgeError, TypeError):
    """`render()` got something that is not an MjData, a sequence of them or a Batch."""


class WorldCountError(MujocoBridgeError, ValueError):
    """A world count that is not a positive int, or data for another number of worlds."""


class CameraError(MujocoBridgeError, ValueError):
    """A camera name or id the model does not have, an item that is not a camera, an
    MjvCamera that cannot be drawn (user type, tracked body out of range), or camera
    arrays of the wrong shape."""


class PoseError(MujocoBridgeError, ValueError):
    """A world's geom pose that is not finite on the GPU (NaN, or beyond
    ``hypergl.finite.GPU_LIMIT``): a simulation that diverged. Names the world, the geom
    and its body."""


class SizeError(MujocoBridgeError, ValueError):
    """An image size that is not a positive int or exceeds the context's limits, or a
    renderer whose worlds, images and model meshes together pass its memory limit."""


class OutputError(MujocoBridgeError, ValueError):
    """An output name that is not one of 'rgb', 'depth', 'segmentation'."""


class LookError(MujocoBridgeError, ValueError):
    """A per-world look the renderer cannot set: a world, geom, material, light or camera
    the renderer does not have, a value that is not finite, out of range or of the wrong
    shape (names the value)."""


class RendererClosedError(MujocoBridgeError, ResourceError):
    """The renderer has been closed."""


class EnvError(MujocoBridgeError, ValueError):
    """A gymnasium environment the pixel wrappers cannot wrap: not a MuJoCo env, a vector
    env whose sub-environments are not in this process, or an observation key taken."""
