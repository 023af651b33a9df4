"""The extension module exports its entry point and nothing of the engine.

An exported engine symbol (``hypergl::GLPipeline::create``...) could bind to a same-named
symbol of another library loaded in the process; hidden, it cannot.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

import hypergl._core as core


@pytest.mark.skipif(sys.platform != "linux" or shutil.which("nm") is None,
                    reason="reads the ELF dynamic symbol table with binutils' nm")  # fmt: skip
def test_extension_exports_only_its_entry_point():
    listing = subprocess.run(["nm", "-D", "--defined-only", core.__file__], capture_output=True,
                             text=True, check=True).stdout  # fmt: skip
    exported = {line.split()[-1] for line in listing.splitlines() if line.strip()}
    # The engine's namespace mangles to _ZN7hypergl...; nothing of it may be visible.
    engine = sorted(name for name in exported if "7hypergl" in name)
    assert not engine, f"{len(engine)} engine symbols exported, e.g. {engine[:3]}"
    assert "PyInit__core" in exported
