"""Files generated from isa.py are committed (the C++ ISA header, the typed recording
methods): they must not be stale."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_committed_header_matches_the_isa_table():
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_isa_header.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_committed_op_methods_match_the_isa_table():
    """op_methods_generated.py (typed recording methods) is generated and committed too."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_op_methods.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
