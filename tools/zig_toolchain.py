"""A C/C++ toolchain for old-glibc Linux wheels: zig's clang, targeting glibc 2.28.

GCC 12 on this machine links against glibc 2.36 and libstdc++ 3.4.29, so a wheel it
builds needs ``manylinux_2_34`` (Debian 11 and Ubuntu 20.04 get none). ``zig c++``
(PyPI's ``ziglang``) compiles against the glibc version it is told and links its own
libc++ statically, so the same sources give a wheel that auditwheel repairs to
``manylinux_2_28``, no container or old machine needed.

CMake wants one executable per compiler, so this writes two small wrapper scripts.
"""

from __future__ import annotations

import platform
import shlex
import subprocess
import sys
from pathlib import Path

GLIBC = "2.28"
#: The manylinux tag a wheel built with this toolchain is repaired to.
PLATFORM = f"manylinux_{GLIBC.replace('.', '_')}_{platform.machine()}"
MACHINES = {"x86_64": "x86_64", "aarch64": "aarch64"}


def available() -> bool:
    """Whether this interpreter has ``ziglang`` and the machine is one zig targets here."""
    if not sys.platform.startswith("linux") or platform.machine() not in MACHINES:
        return False
    probe = [sys.executable, "-m", "ziglang", "version"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def environment(folder: Path) -> dict[str, str]:
    """``CC``/``CXX`` pointing at wrappers in ``folder`` that call zig for glibc 2.28."""
    folder.mkdir(parents=True, exist_ok=True)
    target = f"{MACHINES[platform.machine()]}-linux-gnu.{GLIBC}"
    zig = f"{shlex.quote(sys.executable)} -m ziglang"
    # nanobind 3's headers use stderr without including <cstdio> (nanobind issue #1438);
    # GCC's libstdc++ happens to pull it in, zig's libc++ does not. Included first, it
    # sets glibc's feature macros before Python.h does: Python.h's redefinition of them
    # is expected then (and an error under HYPERGL_WERROR, as CI builds).
    wrappers = {
        "cc": f"{zig} cc -target {target}",
        "c++": f"{zig} c++ -target {target} -include cstdio -Wno-macro-redefined",
    }
    env = {"CCACHE_DISABLE": "1"}  # zig caches its own objects (~/.cache/zig)
    for name, command in wrappers.items():
        script = folder / f"zig-{name}"
        script.write_text(f'#!/bin/sh\nexec {command} "$@"\n')
        script.chmod(0o755)
        env["CC" if name == "cc" else "CXX"] = str(script)
    return env


if __name__ == "__main__":  # print the environment, e.g. for a manual CMake build
    for key, value in environment(Path(sys.argv[1] if len(sys.argv) > 1 else "zig-cc")).items():
        print(f"export {key}={shlex.quote(value)}")
