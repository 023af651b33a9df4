"""The C++ ISA header is generated from isa.py and committed: it must not be stale."""

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
