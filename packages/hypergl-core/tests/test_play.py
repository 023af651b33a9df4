"""`hypergl play`: a .hgb scene played headless, frame by frame, with nothing but submit()."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time

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


def test_play_checks_the_submit_options_once_not_every_frame(gl_ctx, tmp_path, monkeypatch):
    """Scene.prepare: the first frame's options (with the seed) and the rest's, two in all."""
    import hypergl.scene

    made = []
    real = hypergl.scene.submit_options
    monkeypatch.setattr(hypergl.scene, "submit_options",
                        lambda *args: made.append(args) or real(*args))  # fmt: skip
    path = scene_file(gl_ctx, tmp_path / "s.hgb")
    play(path, 6, tmp_path / "out", fps=10, seed=3)
    assert len(made) == 2


def test_the_frames_are_those_of_a_submit_per_frame(gl_ctx, tmp_path):
    """Prepared once, the frames still see the clock of each frame, the seed at the first
    and the registers carried over: the same registers as scene.submit per frame."""
    cmd = gl_ctx.command_buffer()
    sc = SceneCompiler(cmd)
    cmd.bind_framebuffer(gl_ctx.framebuffer((8, 8), name="screen"))
    sc.time(1)  # r1: this frame's clock
    sc.random(2)  # r2: the generator's next number
    cmd.iadd(3, 3, 4)  # r3 += r4: counts frames when r4 is 1
    cmd.li(4, 1)
    cmd.end()
    path = tmp_path / "r.hgb"
    hypergl.save(cmd, path)
    frames = []
    from hypergl import play as play_module

    real = play_module.FrameSubmits.submit

    def spy(self):
        real(self)
        frames.append(self._scene._replayer._kept)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(play_module.FrameSubmits, "submit", spy)
        play(path, 4, tmp_path / "out", fps=10, seed=7, device="null")
    with hypergl.context(device="null") as ctx:
        scene = ctx.load(path)
        expected = []
        for index in range(4):
            stats = scene.submit(clock=index / 10, seed=7 if index == 0 else None,
                                 keep_registers=True)  # fmt: skip
            expected.append(list(stats.registers))
    assert [list(f) for f in frames] == expected
    assert expected[-1][3] == 3  # the registers carried over


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


def looping_file(ctx, path):
    """A file whose frame never halts: `goto` itself."""
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(ctx.framebuffer((8, 8), name="screen"))
    cmd.label("top")
    cmd.goto("top")
    cmd.end()
    hypergl.save(cmd, path)
    return path


def depth_only_file(ctx, path):
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(ctx.framebuffer((8, 8), color=(), name="depth"))
    cmd.clear(depth=1.0)
    cmd.end()
    hypergl.save(cmd, path)
    return path


def play_cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "hypergl", "play", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_a_frame_that_never_halts_is_stopped_by_the_default_budget(gl_ctx, tmp_path):
    looping_file(gl_ctx, tmp_path / "loop.hgb")
    played = play_cli("loop.hgb", "--frames", "2", "--out", "out", cwd=tmp_path)
    assert played.returncode == 1
    assert played.stderr.splitlines() == [
        "hypergl: error: instruction 1 (goto): instruction budget of 10000000 exhausted "
        "(instructions per frame): --budget N raises it"
    ]
    raised = play_cli("loop.hgb", "--frames", "2", "--out", "out", "--budget", "20000000",
                      cwd=tmp_path)  # fmt: skip
    assert "instruction budget of 20000000 exhausted" in raised.stderr


def test_the_window_path_has_the_same_budget(gl_ctx, tmp_path):
    from hypergl.play import play_window

    path = looping_file(gl_ctx, tmp_path / "loop.hgb")
    with pytest.raises(PlayError, match=r"budget of 1000 exhausted .*--budget N raises it"):
        play(path, 1, tmp_path / "out", budget=1000)
    with pytest.raises(PlayError, match=re.escape("--budget must be an int in 1..2**64-1")):
        play_window(path, 1, budget=0)


# Every bad command line ends with one line on stderr and a non-zero status.
BAD_INVOCATIONS = {
    "a missing file": (["missing.hgb", "--frames", "1", "--out", "out"], "No such file"),
    "a directory": ([".", "--frames", "1", "--out", "out"], "Is a directory"),
    "not a .hgb": (["junk.hgb", "--frames", "1", "--out", "out"], "hypergl: error:"),
    "--frames 0": (["s.hgb", "--frames", "0", "--out", "out"], "--frames must be a positive"),
    "--frames -3": (["s.hgb", "--frames", "-3", "--out", "out"], "got -3"),
    "--frames x": (["s.hgb", "--frames", "x", "--out", "out"], "invalid int value: 'x'"),
    "--fps 0": (["s.hgb", "--frames", "1", "--out", "out", "--fps", "0"], "--fps must be"),
    "--seed -1": (["s.hgb", "--frames", "1", "--out", "out", "--seed", "-1"],
                  "--seed: seed must be an int in 0..2**64-1, got -1"),
    "--seed 2**64": (["s.hgb", "--frames", "1", "--out", "out", "--seed", str(2**64)],
                     f"got {2**64}"),
    "--memory-limit 0": (["s.hgb", "--frames", "1", "--out", "out", "--memory-limit", "0"],
                         "--memory-limit: memory_limit must be a positive int of bytes, got 0"),
    "--memory-limit -5": (["s.hgb", "--frames", "1", "--out", "out", "--memory-limit", "-5"],
                          "got -5"),
    "--memory-limit 64": (["s.hgb", "--frames", "1", "--out", "out", "--memory-limit", "64"],
                          "over the memory limit of 64 bytes"),
    "--budget 0": (["s.hgb", "--frames", "1", "--out", "out", "--budget", "0"],
                   "--budget must be an int in 1..2**64-1"),
    "--budget 2**64": (["s.hgb", "--frames", "1", "--out", "out", "--budget", str(2**64)],
                       "--budget must be"),
    "a depth-only framebuffer": (["depth.hgb", "--frames", "1", "--out", "out"],
                                 "framebuffer 'depth' has no colour attachment to show"),
    "an unknown --framebuffer": (["s.hgb", "--frames", "1", "--out", "out", "--framebuffer",
                                  "nope"], "--framebuffer 'nope'"),
    "two framebuffers, none named": (["two.hgb", "--frames", "1", "--out", "out"],
                                     "name one with --framebuffer"),
    "--out is a file": (["s.hgb", "--frames", "1", "--out", "s.hgb"], "hypergl: error:"),
    "no --out": (["s.hgb", "--frames", "1"], "headless play needs --frames N and --out DIR"),
    "--window --out": (["s.hgb", "--window", "--out", "out"], "--out is for headless play"),
    "an unknown option": (["s.hgb", "--colour", "red"], "unrecognized arguments"),
    "a window with --seed -1": (["s.hgb", "--window", "--seed", "-1"], "--seed: seed must"),
}  # fmt: skip


@pytest.fixture
def files(gl_ctx, tmp_path):
    scene_file(gl_ctx, tmp_path / "s.hgb")
    scene_file(gl_ctx, tmp_path / "two.hgb", framebuffers=2)
    depth_only_file(gl_ctx, tmp_path / "depth.hgb")
    (tmp_path / "junk.hgb").write_bytes(b"HGB\x00 not really")
    return tmp_path


@pytest.mark.parametrize("case", sorted(BAD_INVOCATIONS))
def test_a_bad_invocation_is_one_line_and_a_failure_status(files, case, monkeypatch, capsys):
    from hypergl.__main__ import main

    args, message = BAD_INVOCATIONS[case]
    monkeypatch.chdir(files)
    try:
        status = main(["play", *args])  # any other exception fails the test: a traceback
    except SystemExit as exit_:  # argparse
        status = exit_.code
    assert status != 0
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    assert message in lines[0]


@pytest.mark.parametrize("sigint", [signal.SIG_DFL, signal.SIG_IGN], ids=["default", "ignored"])
def test_ctrl_c_stops_headless_play_with_one_line_wherever_it_lands(gl_ctx, tmp_path, sigint):
    """As in a window: 8 moments at random in a long run (a submit, a read, the video)."""
    scene_file(gl_ctx, tmp_path / "s.hgb")
    moments = random.Random(4)
    for _ in range(8):
        player = subprocess.Popen(
            [sys.executable, "-m", "hypergl", "play", "s.hgb", "--frames", "1000000", "--out",
             "out"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),
        )  # fmt: skip
        try:
            assert player.stdout.readline().startswith("playing s.hgb")
            time.sleep(moments.uniform(0.0, 0.3))
            player.send_signal(signal.SIGINT)
            out, err = player.communicate(timeout=60)
        finally:
            player.kill()
            player.wait()
        assert player.returncode == 130, err
        assert out.splitlines() == ["stopped (Ctrl+C)"]
        assert "Traceback" not in err
