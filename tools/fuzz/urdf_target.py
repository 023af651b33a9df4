"""Fuzz target: URDF robots planned and loaded by hypergl_culverin (tools/fuzz/urdf_case.py
says what one case does); mutations by tools/fuzz/xml_mutator.py.

    python3 tools/dev.py fuzz --target urdf --seconds 60
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
        "origin": ["xyz", "rpy"],
        "box": ["size"],
        "sphere": ["radius"],
        "cylinder": ["radius", "length"],
        "mesh": ["filename", "scale"],
        "mass": ["value"],
        "limit": ["lower", "upper"],
        "axis": ["xyz"],
        "joint": ["type", "name"],
        "link": ["name"],
    },
    references=["link"],
    values={
        "filename": [
            "meshes/tetra.obj",
            "link.obj",
            "dangling.obj",
            "../secret/tetra.obj",
            "../secret/none.obj",
            "package://parts/tetra.obj",
            "file:///etc/passwd",
            "https://example.com/a.stl",
            "meshes/../meshes/tetra.obj",
            "/dev/zero",
            "meshes/big.stl",
        ],
        "type": ["fixed", "revolute", "continuous", "prismatic", "floating", "planar", "screw"],
    },
)

if __name__ == "__main__":
    run(
        "urdf_case",
        lambda data, size, seed: xml_mutator.mutate(data, size, seed, atheris.Mutate, WORDS),
    )
