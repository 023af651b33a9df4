"""The main job, small: a few frames of the demo, and the files it writes."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pytestmark = [pytest.mark.gl, pytest.mark.culverin]
Image = pytest.importorskip("PIL.Image")
pytest.importorskip("culverin")


def saturated_fraction(image: np.ndarray) -> float:
    """Pixels in the bodies' saturated colours (trees are green, ground and sky pale)."""
    rgb = image[..., :3].astype(int)
    spread = rgb.max(axis=-1) - rgb.min(axis=-1)
    return float(((spread > 100) & (rgb[..., 1] < rgb.max(axis=-1))).mean())


def test_demo_writes_a_video_and_a_final_image_with_the_bodies(tmp_path):
    out = tmp_path / "demo"
    result = subprocess.run(
        [sys.executable, "-m", "hypergl", "demo", "--frames", "12", "--bodies", "400",
         "--size", "192x108", "--out", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "frames/s" in result.stdout and "VM per frame" in result.stdout
    final = np.asarray(Image.open(out / "final.png"))
    assert final.shape == (108, 192, 3)
    assert saturated_fraction(final) > 0.01, "no bodies visible in the final frame"
    videos = list(out.glob("demo.*"))
    assert videos and videos[0].stat().st_size > 1000
    if videos[0].suffix == ".gif":
        assert Image.open(videos[0]).n_frames >= 10


def test_more_bodies_cover_more_of_the_frame(tmp_path):
    from hypergl_culverin.demo import DemoOptions, run

    seen = []
    for bodies in (1, 600):
        options = DemoOptions(frames=3, bodies=bodies, size=(96, 54), out=tmp_path / str(bodies))
        result = run(options, stream=sys.stderr)
        assert result["frames"] == 3 and result["bodies"] == bodies
        seen.append(saturated_fraction(np.asarray(Image.open(result["image"]))))
    assert seen[1] > 5 * seen[0] + 0.01


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--frames", "0"], "frames must be in 1..100000"),
        (["--bodies", "many"], "bodies must be an integer"),
        (["--size", "64by64"], "size must look like 640x360"),
        (["--size", "8x8"], "size must be 16..4096"),
        (["--physics-threads", "0"], "physics threads must be in 1..256, got 0"),
    ],
)
def test_bad_options_get_a_one_line_error(arguments, message):
    result = subprocess.run([sys.executable, "-m", "hypergl", "demo", *arguments],
                            capture_output=True, text=True)  # fmt: skip
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("scene", ["bodies", "ragdolls"])
def test_the_overlapped_demo_draws_exactly_what_the_sequential_demo_draws(tmp_path, scene):
    from hypergl.pipelining import stage_threads
    from hypergl_culverin.demo import DemoOptions, run

    finals = []
    for sequential in (True, False):
        options = DemoOptions(frames=16, bodies=300, ragdolls=30, scene=scene, size=(128, 72),
                              out=tmp_path / str(sequential), sequential=sequential)  # fmt: skip
        result = run(options, stream=sys.stderr)
        assert result["overlapped"] is not sequential and result["frames"] == 16
        # overlapped on this machine kind: Jolt's job threads as hypergl.pipelining says
        assert result["physics_threads"] == (None if sequential else stage_threads())
        assert {"physics_ms", "render_ms", "overlap_ms", "frame_ms"} <= set(result)
        finals.append(np.asarray(Image.open(result["image"])))
    assert saturated_fraction(finals[0]) > (0.005 if scene == "bodies" else 0.0)  # in view
    assert np.array_equal(finals[0], finals[1]), "frame N must show physics state N"


def test_ctrl_c_stops_an_overlapped_demo_cleanly(tmp_path):
    import signal

    process = subprocess.Popen(
        [sys.executable, "-m", "hypergl", "demo", "--frames", "100000", "--bodies", "300",
         "--size", "96x54", "--out", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # SIGINT as a terminal has it, even when this run inherited it ignored (a background job)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        line = process.stderr.readline()  # the progress line of the first frame: running
        assert line.startswith("demo ["), line
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert "hypergl demo: interrupted" in err
    assert "Traceback" not in err
