"""`hypergl play FILE.hgb`: run a self-contained .hgb scene, frame after frame, headless.

Each frame is one ``scene.submit()`` and nothing else: the program animates itself from
``get_time`` and ``gen_rand``. The clock advances by exactly 1/fps per frame and the
generator starts from a fixed seed (``--seed``, default 0), and the registers carry over
from frame to frame (``keep_registers``), so a file always gives the same frames. The
file is loaded as ``ctx.load`` loads any file (every bound checked, ``--memory-limit``).

Writes ``DIR/last.png`` (the last frame) and, where imageio-ffmpeg is installed
(``pip install imageio imageio-ffmpeg``), ``DIR/play.mp4``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .errors import PlayError
from .png import encode_png
from .resources import Framebuffer
from .video import mp4_writer


def shown_framebuffer(objects: dict[str, Any], name: str | None) -> Framebuffer:
    """The framebuffer to show: the one named, else the scene's only one."""
    framebuffers = {key: obj for key, obj in objects.items() if isinstance(obj, Framebuffer)}
    if name is not None:
        if name not in framebuffers:
            raise PlayError(f"--framebuffer {name!r}: the scene's framebuffers are "
                            f"{sorted(framebuffers)}")  # fmt: skip
        return framebuffers[name]
    if len(framebuffers) != 1:
        raise PlayError(f"the scene has {len(framebuffers)} framebuffers "
                        f"({sorted(framebuffers)}): name one with --framebuffer")  # fmt: skip
    return next(iter(framebuffers.values()))


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
) -> list[Path]:
    """Play `frames` frames of the .hgb file `source` into `out`; returns the files written."""
    from .context import context

    if isinstance(frames, bool) or not isinstance(frames, int) or frames < 1:
        raise PlayError(f"--frames must be a positive int, got {frames!r}")
    if isinstance(fps, bool) or not isinstance(fps, int) or not 1 <= fps <= 1000:
        raise PlayError(f"--fps must be an int in 1..1000, got {fps!r}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with context(device=device) as ctx:
        scene = ctx.load(source, memory_limit=memory_limit)
        target = shown_framebuffer(scene.objects, framebuffer)
        video = mp4_writer(out / "play.mp4", fps) if device == "gl" else None
        frame = None
        try:
            for index in range(frames):
                scene.submit(clock=index / fps, seed=seed if index == 0 else None,
                             keep_registers=True)  # fmt: skip
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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="hypergl play", description=__doc__.splitlines()[0])
    parser.add_argument("file", help="a self-contained .hgb file")
    parser.add_argument("--frames", type=int, required=True, help="frames to play")
    parser.add_argument("--out", required=True, help="directory for play.mp4 and last.png")
    parser.add_argument("--fps", type=int, default=30, help="frames per second (clock step)")
    parser.add_argument("--seed", type=int, default=0, help="the random generator's seed")
    parser.add_argument("--framebuffer", help="the framebuffer to show (default: the only one)")
    parser.add_argument("--memory-limit", type=int, help="bytes the file's resources may take")
    args = parser.parse_args(argv)
    written = play(args.file, args.frames, args.out, fps=args.fps, seed=args.seed,
                   framebuffer=args.framebuffer, memory_limit=args.memory_limit)  # fmt: skip
    for path in written:
        print(path)
    if not any(path.suffix == ".mp4" for path in written):
        print("no MP4: install imageio and imageio-ffmpeg to write one")
    return 0
