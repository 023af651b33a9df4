"""On a free-threaded interpreter, nothing in HyperGL turns the GIL back on."""

from __future__ import annotations

import subprocess
import sys
import sysconfig

import pytest

pytestmark = [
    pytest.mark.gl,
    pytest.mark.skipif(not sysconfig.get_config_var("Py_GIL_DISABLED"),
                       reason="needs a free-threaded CPython (python3 tools/dev.py test "
                              "--free-threaded)"),
]  # fmt: skip

SCRIPT = """
import sys, threading
import hypergl
ctx = hypergl.context()
fb = ctx.framebuffer((4, 4))
cmd = ctx.command_buffer()
cmd.bind_framebuffer(fb)
cmd.clear(color=(0, 1, 0, 1))
cmd.end()
cmd.submit()
first = fb.read()[0, 0].tolist()
second = []
worker = threading.Thread(target=lambda: (cmd.submit(), second.append(fb.read()[1, 1].tolist())))
worker.start()
worker.join()
hypergl.devices()
hypergl.probe()
ctx.close()
print(sys._is_gil_enabled(), first, second[0])
"""


def test_the_gil_stays_off_after_a_context_a_submit_and_a_read():
    # A fresh interpreter: the GIL is re-enabled for good by the first module that
    # has not declared free-threading support, with only a warning.
    result = subprocess.run([sys.executable, "-W", "error", "-c", SCRIPT], capture_output=True,
                            text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "[0,", "255,", "0,", "255]", "[0,", "255,", "0,",
                                     "255]"], result.stdout + result.stderr  # fmt: skip


def test_this_test_process_runs_without_the_gil():
    assert sys._is_gil_enabled() is False
