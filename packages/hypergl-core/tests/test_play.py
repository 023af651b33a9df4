"""`hypergl play`: a .hgb scene played headless, frame by frame, with nothing but submit()."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import hypergl
from hypergl import SceneCompiler
from hypergl.errors import PlayError
from hypergl.play import play

pytestmark = pytest.mark.gl


def scene_file(ctx, path, framebuffers=1):
    screens = [ctx.framebuffer((8, 8), name=f"screen{i}") for i in range(framebuffers)]
    cmd = ctx.command_buffer()
    sc = SceneCompiler(cmd)
    for screen in screens:
        cmd.bind_framebuffer(screen)
    sc.random(0)
    cmd.clear(color=(0.0, 0.5, 0.0, 1.0))
    cmd.end()
    hypergl.save(cmd, path)
    return path


def test_play_writes_the_last_frame(gl_ctx, tmp_path):
    path = scene_file(gl_ctx, tmp_path / "s.hgb")
    written = play(path, 3, tmp_path / "out", fps=10)
    assert tmp_path / "out" / "last.png" in written
    assert (tmp_path / "out" / "last.png").read_bytes().startswith(b"\x89PNG")


def test_a_scene_with_two_framebuffers_needs_one_named(gl_ctx, tmp_path):
    path = scene_file(gl_ctx, tmp_path / "s.hgb", framebuffers=2)
    with pytest.raises(PlayError, match=r"2 framebuffers \(\['screen0', 'screen1'\]\)"):
        play(path, 1, tmp_path / "out")
    assert (tmp_path / "out" / "last.png") in play(path, 1, tmp_path / "out",
                                                   framebuffer="screen1")  # fmt: skip


@pytest.mark.parametrize(("option", "value"), [("frames", 0), ("fps", 0)])
def test_bad_play_options_are_refused(gl_ctx, tmp_path, option, value):
    path = scene_file(gl_ctx, tmp_path / "s.hgb")
    kwargs = {"frames": 1, option: value}
    frames = kwargs.pop("frames")
    with pytest.raises(PlayError, match=f"--{option}"):
        play(path, frames, tmp_path / "out", **kwargs)


def test_a_named_framebuffer_the_scene_lacks_is_refused(gl_ctx, tmp_path):
    path = scene_file(gl_ctx, tmp_path / "s.hgb")
    with pytest.raises(PlayError, match="--framebuffer 'other'"):
        play(path, 1, tmp_path / "out", framebuffer="other")


def test_the_cli_reports_a_bad_file_as_an_error(tmp_path, capsys):
    from hypergl.__main__ import main

    (tmp_path / "bad.hgb").write_bytes(b"not a program")
    assert main(["play", str(tmp_path / "bad.hgb"), "--frames", "1", "--out",
                 str(tmp_path / "out")]) == 1  # fmt: skip
    assert "hypergl: error:" in capsys.readouterr().err


def test_a_file_that_parses_but_does_not_verify_is_one_line_as_in_hgb_verify(tmp_path):
    from hypergl_compiler import Program, hgb, isa

    path = tmp_path / "bad.hgb"
    hgb.save(Program(code=isa.encode(isa.BY_NAME["nop"]) + isa.encode(isa.BY_NAME["li"], 9)), path)
    result = subprocess.run([sys.executable, "-m", "hypergl", "play", str(path), "--frames", "1",
                             "--out", str(tmp_path / "out")], capture_output=True, text=True,
                            timeout=120)  # fmt: skip
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("hypergl: error:") and "instruction 1 (li)" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--window", "--out", "d"], "--out is for headless play"),
     (["--window", "--fps", "60"], "--fps is for headless play"),
     (["--out", "d"], "headless play needs --frames N and --out DIR"),
     (["--frames", "2"], "headless play needs --frames N and --out DIR")],
)  # fmt: skip
def test_the_cli_refuses_options_that_do_not_fit_together(tmp_path, capsys, args, message):
    from hypergl.__main__ import main

    with pytest.raises(SystemExit) as exit_:
        main(["play", str(tmp_path / "s.hgb"), *args])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_a_window_run_refuses_a_bad_frame_count(gl_ctx, tmp_path):
    from hypergl.play import play_window

    with pytest.raises(PlayError, match="--frames must be a positive int, got 0"):
        play_window(scene_file(gl_ctx, tmp_path / "s.hgb"), 0)


def test_a_window_without_a_display_is_one_clear_error(gl_ctx, tmp_path):
    path = scene_file(gl_ctx, tmp_path / "s.hgb")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    result = subprocess.run([sys.executable, "-m", "hypergl", "play", str(path), "--window"],
                            capture_output=True, text=True, timeout=120, env=env)  # fmt: skip
    assert result.returncode == 1
    # GLFW's own warning is inside the message, not printed beside it.
    assert result.stderr.strip().splitlines() == [
        "hypergl: error: GLFW could not initialise (X11: The DISPLAY environment variable is "
        "missing): no display? (set DISPLAY, or run under xvfb-run)"
    ]
