"""Inputs the fuzzer found (tools/dev.py fuzz), replayed as the fuzz target runs them.

A crash-* or timeout-* file from build/fuzz/ is committed to fuzz_findings/ under a
name that says what it does; each one replays in its own process (a crash must not
take the suite down) on trace and gl, and must end in the project's own errors.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REPLAY = ROOT / "tools" / "fuzz" / "replay.py"
FINDINGS = sorted((Path(__file__).resolve().parent / "fuzz_findings").glob("*.hgb"))


@pytest.mark.parametrize("finding", FINDINGS, ids=[path.stem for path in FINDINGS])
def test_a_fuzz_finding_ends_in_the_projects_errors(finding):
    done = subprocess.run([sys.executable, str(REPLAY), str(finding)], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
