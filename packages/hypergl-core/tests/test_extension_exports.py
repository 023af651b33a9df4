"""The extension module exports its entry point and nothing else.

An exported symbol (an engine function, a standard-library template nanobind or the
engine instantiated) could bind to a same-named one of another library in the process;
hidden, it cannot (cpp/bindings/exports.map).
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
    assert exported == {"PyInit__core"}, f"{len(exported)} exported, e.g. {sorted(exported)[:3]}"
