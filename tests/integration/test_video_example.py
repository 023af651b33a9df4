"""examples/video_writer.py writes a playable YUV4MPEG2 file through async readback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# A root example (examples/), tested from the root suite: a distribution's own tests never
# reach outside it (they also run against its installed wheel, tools/dist.py).
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "video_writer.py"


@pytest.mark.parametrize("backend", ["auto", "numpy"])
def test_video_writer_writes_every_frame(tmp_path, backend):
    out = tmp_path / "clip.y4m"
    result = subprocess.run(
        [sys.executable, str(EXAMPLE), "--out", str(out), "--frames", "5", "--size", "64x48",
         "--triangles", "60", "--backend", backend],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "wrote 5 frames of 64x48" in result.stdout
    data = out.read_bytes()
    header = b"YUV4MPEG2 W64 H48 F30:1 Ip A1:1 C444\n"
    assert data.startswith(header)
    assert len(data) == len(header) + 5 * (len(b"FRAME\n") + 64 * 48 * 3)


def test_video_writer_rejects_bad_arguments(tmp_path):
    for args, message in [(["--size", "64by48"], "--size"), (["--out", "x.mp4"], ".y4m"),
                          (["--frames", "0"], "positive")]:  # fmt: skip
        result = subprocess.run([sys.executable, str(EXAMPLE), *args], capture_output=True,
                                text=True, timeout=120, cwd=tmp_path)  # fmt: skip
        assert result.returncode == 2 and message in result.stderr, (args, result.stderr)
