"""Writing frames: an MP4 through imageio-ffmpeg when installed, else an animated GIF."""

from __future__ import annotations

from pathlib import Path

import numpy as np


class FrameWriter:
    """Collects RGB frames into `directory/demo.mp4` (or `demo.gif`)."""

    def __init__(self, directory: Path, fps: int = 30) -> None:
        self.directory = directory
        self.fps = fps
        self._writer = None
        self.path: Path
        self._gif_frames: list[np.ndarray] = []
        try:
            import imageio.v2 as imageio
            import imageio_ffmpeg  # noqa: F401  (the MP4 writer's binary)

            self.path = directory / "demo.mp4"
            self._writer = imageio.get_writer(
                self.path, fps=fps, codec="libx264", quality=7, macro_block_size=8
            )
        except ImportError:
            self.path = directory / "demo.gif"

    def append(self, frame: np.ndarray) -> None:
        if self._writer is not None:
            self._writer.append_data(frame)
        elif len(self._gif_frames) < 300:  # keep GIFs small
            self._gif_frames.append(frame[::2, ::2].copy())

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        elif self._gif_frames:
            from PIL import Image

            images = [Image.fromarray(f) for f in self._gif_frames]
            images[0].save(self.path, save_all=True, append_images=images[1:],
                           duration=int(1000 / self.fps), loop=0)  # fmt: skip
