"""Writing frames: an MP4 through imageio-ffmpeg when installed, else an animated GIF
(through Pillow). Shared by the demos, the examples and ``hypergl play``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def mp4_writer(path: Path, fps: int) -> Any:
    """An imageio H.264 writer of `path` (``append_data(rgb)``, ``close()``), or None
    without imageio and imageio-ffmpeg."""
    try:
        import imageio.v2 as imageio  # type: ignore[import-not-found]
        import imageio_ffmpeg  # type: ignore[import-not-found]  # noqa: F401  (its binary)
    except ImportError:
        return None
    return imageio.get_writer(path, fps=fps, codec="libx264", quality=7, macro_block_size=8)


class FrameWriter:
    """Collects RGB frames into `directory/NAME.mp4` (or `NAME.gif`)."""

    def __init__(self, directory: Path, fps: int = 30, name: str = "demo") -> None:
        self.directory = directory
        self.fps = fps
        self._gif_frames: list[np.ndarray] = []
        self._writer = mp4_writer(directory / f"{name}.mp4", fps)
        self.path: Path = directory / f"{name}.{'gif' if self._writer is None else 'mp4'}"

    def append(self, frame: np.ndarray) -> None:
        if self._writer is not None:
            self._writer.append_data(frame)
        elif len(self._gif_frames) < 300:  # keep GIFs small
            self._gif_frames.append(frame[::2, ::2].copy())

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        elif self._gif_frames:
            from PIL import Image  # type: ignore[import-not-found]

            images = [Image.fromarray(f) for f in self._gif_frames]
            images[0].save(self.path, save_all=True, append_images=images[1:],
                           duration=int(1000 / self.fps), loop=0)  # fmt: skip
