"""`hypergl play FILE.hgb`: run a self-contained .hgb scene, frame after frame.

Each frame is one prepared submit (``scene.prepare()``: the options are checked once, not
every frame) and nothing else: the program animates itself from
``get_time`` and ``gen_rand``. The generator starts from a fixed seed (``--seed``, default
0) and the registers carry over from frame to frame (``keep_registers``). The file is
loaded as ``ctx.load`` loads any file (every bound checked, ``--memory-limit``).

Headless (``--frames N --out DIR``) the clock advances by exactly 1/fps per frame, so a
file always gives the same frames: writes ``DIR/last.png`` (the last frame) and, where
imageio-ffmpeg is installed (``pip install imageio imageio-ffmpeg``), ``DIR/play.mp4``.
In a window (``--window``, GLFW) the clock is the wall clock: the scene draws straight
into the window until it is closed, Escape is pressed, ``--frames`` have been shown or
Ctrl+C is pressed.

A frame may run ``--budget`` instructions (default 10 million): a program that never
halts fails with one line instead of running forever. From the command line, Ctrl+C ends
play the same way on both paths (one line, exit status 130; see :mod:`.stop`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, NoReturn

from hypergl_compiler import hgb
from hypergl_compiler.isa import ResourceKind

from .checks import check_size
from .errors import PlayError, ResourceError, VMError
from .limits import PORTABLE_LIMITS, check_framebuffer
from .png import encode_png
from .scene_memory import check_scene_memory
from .video import mp4_writer
from .vm_state import check_seed

# Instructions one frame may run: far above what drawing a frame takes (thousands), and
# a few tenths of a second of a program that never halts.
DEFAULT_BUDGET = 10_000_000
U64_MAX = (1 << 64) - 1


def shown_framebuffer(resources: Any, name: str | None) -> Any:
    """The framebuffer entry of a program's `resources` to show: the one named, else the
    only one."""
    framebuffers = {r.name: r for r in resources if r.kind is ResourceKind.FRAMEBUFFER}
    if name is not None:
        if name not in framebuffers:
            raise PlayError(f"--framebuffer {name!r}: the scene's framebuffers are "
                            f"{sorted(framebuffers)}")  # fmt: skip
        return framebuffers[name]
    elif len(framebuffers) != 1:
        raise PlayError(f"the scene has {len(framebuffers)} framebuffers "
                        f"({sorted(framebuffers)}): name one with --framebuffer")  # fmt: skip
    else:
        name = next(iter(framebuffers))
    shown = framebuffers[name]
    if not shown.desc.get("color"):
        raise PlayError(f"framebuffer {name!r} has no colour attachment to show (depth only)")
    return shown


def check_options(frames: Any, seed: Any, budget: Any, memory_limit: Any) -> int | None:
    """PlayError naming the option unless each is one play takes; returns the memory limit
    (None: the default). `frames` None: no bound (a window)."""
    if frames is not None:
        _check_frames(frames)
    try:
        check_seed(seed)
    except ValueError as exc:
        raise PlayError(f"--seed: {exc}") from None
    if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= U64_MAX:
        raise PlayError(f"--budget must be an int in 1..2**64-1 (instructions per frame), "
                        f"got {budget!r}")  # fmt: skip
    if memory_limit is None:
        return None
    try:
        return hgb.check_memory_limit(memory_limit)
    except TypeError as exc:
        raise PlayError(f"--memory-limit: {exc}") from None


class FrameSubmits:
    """The frames of `scene`, each one prepared submit (``Scene.prepare``: the options are
    checked once, not every frame): the first frame's restarts the generator from `seed`;
    the others', prepared after it ran, go on from the registers it left (keep_registers).
    A spent budget says how to raise it."""

    def __init__(self, scene: Any, budget: int, seed: int) -> None:
        self._scene, self._budget = scene, budget
        self._next = scene.prepare(budget=budget, keep_registers=True, seed=seed)
        self._first = True

    def submit(self) -> None:
        """One frame."""
        try:
            self._next.submit()
        except VMError as exc:
            if not exc.reason.startswith("instruction budget"):
                raise
            raise PlayError(f"{exc} (instructions per frame): --budget N raises it") from None
        if self._first:
            self._first = False
            self._next = self._scene.prepare(budget=self._budget, keep_registers=True)


def play(
    source: str | Path,
    frames: int,
    out: str | Path,
    *,
    fps: int = 30,
    seed: int = 0,
    framebuffer: str | None = None,
    device: str = "gl",
    memory_limit: int | None = None,
    budget: int = DEFAULT_BUDGET,
    on_open: Any = None,
) -> list[Path]:
    """Play `frames` frames of the .hgb file `source` into `out`; returns the files written.

    `on_open()` is called once the scene is loaded, before the first frame."""
    from .context import context

    memory_limit = check_options(frames, seed, budget, memory_limit)
    if isinstance(fps, bool) or not isinstance(fps, int) or not 1 <= fps <= 1000:
        raise PlayError(f"--fps must be an int in 1..1000, got {fps!r}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with context(device=device) as ctx:
        scene = ctx.load(source, memory_limit=memory_limit)
        target = scene.objects[shown_framebuffer(scene.program.resources, framebuffer).name]
        if on_open is not None:
            on_open()
        video = mp4_writer(out / "play.mp4", fps) if device == "gl" else None
        frame = None
        submits = FrameSubmits(scene, budget, seed)
        try:
            for index in range(frames):
                ctx.set_clock(index / fps)  # frame-exact time, whatever the wall clock says
                submits.submit()
                if device == "gl":
                    frame = target.read()
                    if video is not None:
                        video.append_data(frame[:, :, :3])
        finally:
            if video is not None:
                video.close()
                written.append(out / "play.mp4")
        if frame is not None:
            (out / "last.png").write_bytes(encode_png(frame))
            written.append(out / "last.png")
    return written


def _check_frames(frames: Any) -> None:
    if isinstance(frames, bool) or not isinstance(frames, int) or frames < 1:
        raise PlayError(f"--frames must be a positive int, got {frames!r}")


def _window_for(source: str | Path, name: str | None, memory_limit: int | None) -> Any:
    """(the framebuffer entry to show, the window's size), checked before a window opens.

    The file is read here only to size the window, with ctx.load's checks: its memory
    check counts the shown framebuffer, which the window then replaces (ctx.load below,
    the one path that makes the scene, leaves it out as bound).
    """
    limit = hgb.check_memory_limit(memory_limit)
    program = hgb.load(source, memory_limit=limit)
    check_scene_memory(program, {}, limit)
    shown = shown_framebuffer(program.resources, name)
    try:
        size = check_size((shown.desc.get("width"), shown.desc.get("height")), "framebuffer size")
        check_framebuffer(PORTABLE_LIMITS, *size, "framebuffer")
    except (TypeError, ValueError) as exc:
        raise ResourceError(f"resource '{shown.name}' cannot be shown in a window: {exc}") from None
    return shown, size


def play_window(
    source: str | Path,
    frames: int | None = None,
    *,
    seed: int = 0,
    framebuffer: str | None = None,
    memory_limit: int | None = None,
    budget: int = DEFAULT_BUDGET,
    on_open: Any = None,
) -> int:
    """Play the .hgb file `source` in a GLFW window on the wall clock; returns the frames shown.

    The window has the shown framebuffer's size and takes its place (``bindings``): the
    scene draws into the window, each frame one submit, then swap and poll. Stops when the
    window is closed, Escape is pressed or `frames` (None: no bound) have been shown.
    `on_open()` is called once the window is up (the CLI says so there).
    """
    from .context import context

    memory_limit = check_options(frames, seed, budget, memory_limit)
    shown, size = _window_for(source, framebuffer, memory_limit)
    with context(window=size, title=f"hypergl play {Path(source).name}") as ctx:
        scene = ctx.load(source, bindings={shown.name: ctx.screen}, memory_limit=memory_limit)
        ctx.close_on_escape()
        if on_open is not None:
            on_open()
        shown_frames = 0
        submits = FrameSubmits(scene, budget, seed)
        while not ctx.should_close and (frames is None or shown_frames < frames):
            submits.submit()
            ctx.swap()
            ctx.poll()
            shown_frames += 1
    return shown_frames


class _Parser(argparse.ArgumentParser):
    """A bad command line is one line (with the hint to --help) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def main(argv: list[str]) -> int:
    """`hypergl play`: Ctrl+C ends it with one line and status 130 (see stop.py)."""
    from .stop import ctrl_c_exits

    with ctrl_c_exits():
        return _main(argv)


def _main(argv: list[str]) -> int:
    parser = _Parser(prog="hypergl play", description=__doc__.splitlines()[0])
    parser.add_argument("file", help="a self-contained .hgb file")
    parser.add_argument(
        "--window",
        action="store_true",
        help="play in a window on the wall clock (Escape or close to stop)",
    )
    parser.add_argument(
        "--frames", type=int, help="frames to play (headless: required; window: at most)"
    )
    parser.add_argument("--out", help="directory for play.mp4 and last.png (headless)")
    parser.add_argument(
        "--fps", type=int, help="headless: frames per second of the clock step (default 30)"
    )
    parser.add_argument("--seed", type=int, default=0, help="the random generator's seed")
    parser.add_argument("--framebuffer", help="the framebuffer to show (default: the only one)")
    parser.add_argument("--memory-limit", type=int, help="bytes the file's resources may take")
    parser.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_BUDGET,
        help=f"instructions a frame may run (default {DEFAULT_BUDGET})",
    )
    args = parser.parse_args(argv)
    if args.window:
        for option, value in (("--out", args.out), ("--fps", args.fps)):
            if value is not None:
                parser.error(f"{option} is for headless play; --window plays on the wall clock "
                             "and writes no files")  # fmt: skip
        shown = play_window(
            args.file, args.frames, seed=args.seed, framebuffer=args.framebuffer,
            memory_limit=args.memory_limit, budget=args.budget,
            on_open=lambda: print(f"playing {args.file}: Escape or close the window to stop",
                                  flush=True),
        )  # fmt: skip
        print(f"played {shown} frames")
        return 0
    if args.frames is None or args.out is None:
        parser.error("headless play needs --frames N and --out DIR (or play in a --window)")
    written = play(args.file, args.frames, args.out, fps=30 if args.fps is None else args.fps,
                   seed=args.seed, framebuffer=args.framebuffer,
                   memory_limit=args.memory_limit, budget=args.budget,
                   on_open=lambda: print(f"playing {args.file}: {args.frames} frames into "
                                         f"{args.out}", flush=True))  # fmt: skip
    for path in written:
        print(path)
    if not any(path.suffix == ".mp4" for path in written):
        print("no MP4: install imageio and imageio-ffmpeg to write one")
    return 0
