"""Fuzz target: MJCF models compiled by MuJoCo and drawn by hypergl_mujoco's BatchRenderer
(tools/fuzz/mjcf_case.py says what one case does); mutations by tools/fuzz/xml_mutator.py.

    python3 tools/dev.py fuzz --target mjcf --seconds 60
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import atheris
import xml_mutator
from _target import run

WORDS = xml_mutator.Vocabulary(
    {
        "geom": ["type", "size", "pos", "quat", "fromto", "rgba", "group", "hfield", "mesh"],
        "camera": [
            "fovy",
            "pos",
            "xyaxes",
            "mode",
            "sensorsize",
            "focal",
            "resolution",
            "principal",
            "orthographic",
        ],
        "hfield": ["nrow", "ncol", "size"],
        "body": ["pos", "quat"],
        "mesh": ["vertex", "scale"],
        "map": ["znear", "zfar"],
        "global": ["fovy"],
        "statistic": ["extent", "center"],
    },
    references=["hfield", "mesh", "material", "target"],
    values={
        "type": [
            "plane",
            "hfield",
            "sphere",
            "capsule",
            "ellipsoid",
            "cylinder",
            "box",
            "mesh",
            "sdf",
        ],
        "nrow": ["0", "1", "2", "3", "4000", "65535"],
        "ncol": ["1", "2", "4000"],
        "mode": ["fixed", "track", "trackcom", "targetbody", "targetbodycom"],
    },
)

if __name__ == "__main__":
    run(
        "mjcf_case",
        lambda data, size, seed: xml_mutator.mutate(data, size, seed, atheris.Mutate, WORDS),
    )
