"""One URDF fuzz case: hypergl_culverin plans the robot (every value, joint and mesh path
checked), then loads it into a fresh Culverin world through the bridge (trace device).
Used by the fuzz target (urdf_target.py).

    .venv/bin/python tools/fuzz/urdf_case.py FILE...   # replay inputs, e.g. a crash-* file

The file is written into a robot folder that holds a mesh (``meshes/tetra.obj``), a
symbolic link out of it (``link.obj`` -> ``../secret/tetra.obj``) and a dangling one, with a
``secret`` folder beside it. Every input must end in the project's own errors
(HyperGLError), under a memory limit of MEMORY_LIMIT, and no message may name the secret
folder (a refused path says neither where a link points nor whether a file exists there).
A raw exception, a crash, a hang or a message that leaks is a finding.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import culverin

import hypergl
from hypergl_culverin import urdf

MEMORY_LIMIT = 8 << 20
TETRA_OBJ = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
_ROOT = Path(tempfile.mkdtemp(prefix="hypergl-fuzz-urdf-"))
SECRET, ROBOT = _ROOT / "secret", _ROOT / "robot"
for folder in (SECRET, ROBOT / "meshes"):
    folder.mkdir(parents=True)
(SECRET / "tetra.obj").write_text(TETRA_OBJ)
(ROBOT / "meshes" / "tetra.obj").write_text(TETRA_OBJ)
(ROBOT / "link.obj").symlink_to(SECRET / "tetra.obj")
(ROBOT / "dangling.obj").symlink_to(SECRET / "none.obj")
_CTX = hypergl.context(device="trace")


def check(data: bytes) -> None:
    path = ROBOT / "case.urdf"
    path.write_bytes(data)
    packages = {"parts": ROBOT / "meshes"}
    try:
        urdf.plan(path, (0, 0, 0), fixed_base=False, memory_limit=MEMORY_LIMIT,
                  packages=packages)  # fmt: skip
        world = culverin.PhysicsWorld(settings={"max_bodies": 64})
        bridge = _CTX.bridge("culverin", world, capacity=64)
        bridge.load_urdf(path, memory_limit=MEMORY_LIMIT, packages=packages)
    except hypergl.HyperGLError as exc:
        if str(SECRET) in str(exc):
            raise AssertionError(f"a message names the folder outside: {exc}") from None
    finally:
        _CTX.release("all")


if __name__ == "__main__":
    for name in sys.argv[1:]:
        check(Path(name).read_bytes())
        print(f"{name}: no finding")
