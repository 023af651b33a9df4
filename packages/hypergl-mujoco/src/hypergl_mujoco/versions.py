"""Which MuJoCo hypergl-mujoco runs on, checked once at import.

MuJoCo comes in two distributions that install the same ``mujoco/`` folder: ``mujoco``
(3.x; in 4.x a meta-package of ``mujoco-core`` pinned to its own version, the viewer and
PyOpenGL) and ``mujoco-core`` (4.x: the bindings alone). Depending on either would let pip
install it over the other, so hypergl-mujoco depends on neither (its extras ``[mujoco]``
and ``[core]`` bring one into an environment without MuJoCo) and checks here instead.

The floor is 3.5.0, the first release with ``mjtProjection`` and ``cam_projection`` (which
replaced ``cam_orthographic``). ``mujoco.batch.Batch`` (3.17 on) is optional.
"""

from __future__ import annotations

import re
from importlib import metadata
from types import ModuleType

from .errors import MujocoVersionError

MINIMUM = (3, 5, 0)
BELOW = (5, 0, 0)  # MuJoCo 5 may change what the renderer reads: not claimed before tested
SUPPORTED = f">={'.'.join(map(str, MINIMUM))},<{BELOW[0]}"
DISTRIBUTIONS = ("mujoco", "mujoco-core")
INSTALL = ("pip install 'mujoco>=3.5' (or hypergl-mujoco[mujoco]), or pip install "
           "'mujoco-core>=4,<5' (or hypergl-mujoco[core])")  # fmt: skip


def installed() -> dict[str, str]:
    """The MuJoCo distributions in this environment, name -> version."""
    found = {}
    for name in DISTRIBUTIONS:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def _installed_text() -> str:
    found = installed()
    if not found:
        return "no mujoco or mujoco-core distribution is installed"
    text = ", ".join(f"{name} {version}" for name, version in found.items())
    if len(found) > 1:
        text += (
            " are installed, and both write the same mujoco/ folder: keep one (pip "
            "uninstall the other, then pip install --force-reinstall the one kept)"
        )
    return text


def parse(version: str) -> tuple[int, int, int]:
    """(major, minor, patch) of a MuJoCo version string such as '3.17.0' or '4.0.1'."""
    match = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", version)
    if match is None:
        raise MujocoVersionError(f"cannot read MuJoCo's version {version!r}; hypergl-mujoco "
                                 f"needs MuJoCo {SUPPORTED}")  # fmt: skip
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch or 0)


def check(version: str) -> tuple[int, int, int]:
    """`version` parsed, or :class:`MujocoVersionError` naming it and the supported range."""
    parsed = parse(version)
    if not MINIMUM <= parsed < BELOW:
        raise MujocoVersionError(f"hypergl-mujoco needs MuJoCo {SUPPORTED}, found mujoco "
                                 f"{version} ({_installed_text()}); {INSTALL}")  # fmt: skip
    return parsed


def require_mujoco() -> ModuleType:
    """``mujoco``, imported and checked: :class:`MujocoVersionError` when it is missing,
    broken (two distributions over one folder) or of a version outside :data:`SUPPORTED`."""
    try:
        import mujoco
    except ImportError as exc:
        raise MujocoVersionError(f"hypergl-mujoco needs MuJoCo {SUPPORTED}, and `import "
                                 f"mujoco` failed: {exc} ({_installed_text()}); "
                                 f"{INSTALL}") from exc  # fmt: skip
    check(str(getattr(mujoco, "__version__", "unknown")))
    return mujoco


def batch_type() -> type | None:
    """``mujoco.batch.Batch``, or None on a MuJoCo before 3.17 (which has no batch)."""
    try:
        from mujoco.batch import Batch
    except ImportError:
        return None
    return Batch


require_mujoco()  # on import: hypergl_mujoco imports this module before any other
