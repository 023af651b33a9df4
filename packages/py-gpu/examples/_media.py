"""Shared by the examples: writing frames to PNG and to an H.264 MP4 (through imageio-ffmpeg's
bundled ffmpeg: ``pip install imageio-ffmpeg``)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from py_gpu import FrameBuffer


def write_mp4(path: Path, frames: Iterable[FrameBuffer], width: int, height: int, fps: int) -> Path:
    """Encode ``frames`` (all ``width`` x ``height``) as ``path``; returns it."""
    try:
        import imageio_ffmpeg
    except ImportError as exc:
        raise SystemExit(
            f"writing MP4 needs imageio-ffmpeg: pip install imageio-ffmpeg ({exc})"
        ) from exc
    path.parent.mkdir(parents=True, exist_ok=True)
    # Even sizes for yuv420p; macro_block_size=1 keeps the frame's own size when it is even.
    writer = imageio_ffmpeg.write_frames(
        str(path),
        (width, height),
        fps=fps,
        codec="libx264",
        pix_fmt_out="yuv420p",
        macro_block_size=2,
        ffmpeg_log_level="error",
    )
    writer.send(None)  # start ffmpeg
    try:
        for frame in frames:
            writer.send(frame.to_rgb_bytes())
    finally:
        writer.close()
    return path


def write_png(path: Path, frame: FrameBuffer) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_png(path)
    return path
