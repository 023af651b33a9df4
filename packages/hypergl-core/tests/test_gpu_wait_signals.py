"""Ctrl+C during a long GPU wait: every wait of ours on the GPU waits in slices and checks
for signals between them, so SIGINT returns control while the driver still works.

A frame whose fragment shader loops keeps the GPU busy for many minutes (llvmpipe caps a
shader invocation's loops near 65535 iterations, so the work is also a million fragments,
16 layers deep). Each case runs in a process of its own: SIGINT while it waits must end the
wait long before the frame could end. The guards below (a minute) are hang guards, not
timings: the frame alone takes far longer. The process leaves with ``os._exit``: closing a
context whose GPU still works waits for the frame inside the driver.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import hypergl
from hypergl.shader_prelude import FULL_SCREEN_VERTEX

pytestmark = pytest.mark.gl

HEAVY_FRAGMENT = """#version 430
layout(location = 0) uniform int n;
layout(binding = 0) uniform sampler2D seed;
out vec4 color;
void main() {
    float x = texture(seed, gl_FragCoord.xy / 1024.0).r;
    for (int i = 0; i < n; ++i) x = fract(x * 1.0001 + 0.1);
    color = vec4(x, 0.0, 0.0, 1.0);
}
"""
SIZE = 1024
LAYERS = 16


def record_heavy_frame(ctx, cmd, fb):
    """Draws LAYERS full-screen triangles whose every fragment loops 2**31 - 1 times (on
    llvmpipe about 65535: it caps loops)."""
    cmd.bind_framebuffer(fb)
    cmd.bind_pipeline(
        ctx.pipeline(vertex_shader=FULL_SCREEN_VERTEX, fragment_shader=HEAVY_FRAGMENT)
    )
    cmd.bind_texture(ctx.texture(np.zeros((4, 4, 4), np.uint8), name="seed"), 0)
    cmd.uniform_const(0, 2**31 - 1, "int")
    cmd.draw(3, instances=LAYERS)


def heavy_file(ctx, path):
    fb = ctx.framebuffer((SIZE, SIZE), depth=None, name="screen")
    cmd = ctx.command_buffer()
    record_heavy_frame(ctx, cmd, fb)
    cmd.end()
    hypergl.save(cmd, path)
    return path


# Each wait of ours on the GPU, after the heavy frame was submitted (`scene.submit()`).
WAITS = {
    "framebuffer read": "scene.objects['screen'].read()",
    "finish": "ctx.finish()",
    "buffer read": "data.read()",
    "fence wait": "signal_fence.submit(); fence.wait(timeout=float('inf'))",
    "capture and read of a readback ring": "capture.submit(); readback.read(lag=0)",
    "the VM's fence wait": "signal_and_wait.submit()",
    "the VM's memory barrier": "barrier.submit()",
    "a write of a texture the frame samples": "scene.objects['seed'].write(pixels)",
}

CHILD = """
import os, sys
import numpy as np
import hypergl

def program(*ops):
    cmd = ctx.command_buffer()
    for op, *args in ops:
        getattr(cmd, op)(*args)
    cmd.end()
    return cmd

with hypergl.context() as ctx:
    from test_gpu_wait_signals import heavy_file

    scene = ctx.load(heavy_file(ctx, sys.argv[1]))
    data, fence = ctx.buffer(size=16), ctx.fence()
    readback = ctx.readback(scene.objects["screen"])
    signal_fence = program(("fence_signal", fence))
    capture = program(("read_framebuffer", readback, scene.objects["screen"]))
    signal_and_wait = program(("fence_signal", fence), ("fence_wait", fence, 4_000_000_000))
    barrier = program(("barrier",))
    pixels = np.ones((4, 4, 4), np.uint8)
    scene.submit()
    print("waiting", flush=True)
    try:
        exec(sys.argv[2])
        print("the wait ended by itself", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    os._exit(0)
"""


@pytest.fixture
def gpu_works_after_submit(gl_ctx):
    """Skips where the driver runs a frame inside the flush that submits it, on the calling
    thread: Mesa 20.3's llvmpipe (Debian 11) rasterizes the whole scene before glFlush,
    glFenceSync or eglMakeCurrent's release return, so a submit returns only once its frame
    is done and no wait of ours is ever reached while the GPU works. There a long frame ends
    a wait only when the driver returns (test_vm_threads checks that much).

    The probe: a frame of some 10^8 loop iterations and a fence after it; where submitting
    returns at once, the fence has not passed when polled right after."""
    fb = gl_ctx.framebuffer((64, 64), depth=None)
    fence = gl_ctx.fence()
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    cmd.bind_pipeline(
        gl_ctx.pipeline(vertex_shader=FULL_SCREEN_VERTEX, fragment_shader=HEAVY_FRAGMENT)
    )
    cmd.bind_texture(gl_ctx.texture(np.zeros((4, 4, 4), np.uint8)), 0)
    cmd.uniform_const(0, 2**31 - 1, "int")
    cmd.draw(3)
    cmd.fence_signal(fence)
    cmd.end()
    cmd.submit()
    passed = fence.wait(timeout=0)
    gl_ctx.finish()
    if passed:
        pytest.skip(
            f"{gl_ctx.info['version']} runs a frame inside the flush that submits it (on the "
            "calling thread): no GPU wait is reached while the GPU works"
        )


def sigint_while_waiting(command, cwd, env=None, settle=0.5):
    """Runs `command` (SIGINT at its default, as in a foreground job) and sends it SIGINT
    `settle` s after its first line ("waiting", "playing ..."); (status, stdout, stderr)."""
    child = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             preexec_fn=default_sigint)  # fmt: skip
    try:
        ready, _, _ = select.select([child.stdout], [], [], 120)  # a hang guard
        assert ready, "no first line within 120 s"
        first = child.stdout.readline()
        time.sleep(settle)  # into the wait
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
        child.wait()
    return child.returncode, first + out, err


def default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="needs POSIX signals")
@pytest.mark.parametrize("wait", sorted(WAITS))
def test_ctrl_c_ends_a_gpu_wait_while_the_gpu_still_works(
    gl_ctx, gpu_works_after_submit, tmp_path, wait
):
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([os.path.dirname(__file__), os.environ.get("PYTHONPATH", "")]),
    )
    command = [sys.executable, "-c", textwrap.dedent(CHILD), "heavy.hgb", WAITS[wait]]
    status, out, err = sigint_while_waiting(command, tmp_path, env)
    assert (status, out.split()) == (0, ["waiting", "interrupted"]), err


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="needs POSIX signals")
def test_ctrl_c_stops_hypergl_play_inside_a_frame_with_one_line(
    gl_ctx, gpu_works_after_submit, tmp_path
):
    heavy_file(gl_ctx, tmp_path / "heavy.hgb")
    command = [sys.executable, "-m", "hypergl", "play", "heavy.hgb", "--frames", "3",
               "--out", "out"]  # fmt: skip
    status, out, err = sigint_while_waiting(command, tmp_path)
    assert status == 130, err
    assert out.splitlines() == ["playing heavy.hgb: 3 frames into out", "stopped (Ctrl+C)"]
    assert err == ""


@pytest.mark.window
@pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="no display (run under xvfb-run)")
def test_ctrl_c_stops_a_window_inside_a_frame_with_one_line(
    gl_ctx, gpu_works_after_submit, tmp_path
):
    heavy_file(gl_ctx, tmp_path / "heavy.hgb")
    command = [sys.executable, "-m", "hypergl", "play", "heavy.hgb", "--window"]
    status, out, err = sigint_while_waiting(command, tmp_path)
    assert status == 130, err
    assert out.splitlines()[-1] == "stopped (Ctrl+C)"
    assert "Traceback" not in err
