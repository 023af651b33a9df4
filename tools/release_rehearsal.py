"""Rehearse a release: publish every wheel and sdist to a package index on 127.0.0.1, then
install each distribution alone from it, as a user would, and run its first program.

    python3 tools/dev.py release-rehearsal [--dist DIR]

1. ``twine check --strict`` on the wheels and sdists in DIR (default ``dist/``, made by
   ``tools/dev.py dist``; made here with ``--build-only`` when absent).
2. The third-party wheels they need (NumPy, Culverin, ...) are downloaded once into
   ``~/.cache/hypergl/rehearsal-wheels``, so the index serves everything and pip is never
   pointed at PyPI (no package of ours can come from anywhere but the upload).
3. pypiserver starts on a free port of 127.0.0.1 with its redirect to PyPI turned off;
   ``twine upload`` sends every file to it.
4. For each distribution, a new venv in a temporary folder outside the checkout installs it
   **alone** (``pip install --index-url <local> --only-binary :all: DIST``), imports it, runs
   a user's first program and its entry points (``hgb``, ``hypergl info``, the py_gpu
   backends, the Culverin bridge), and checks pip took our files from the local index.
5. The server stops, whatever happened.

Run by the development environment's Python (pypiserver and twine are in it).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reporting import Reporter  # tools/ is not a package

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hypergl"
THIRD_PARTY = CACHE / "rehearsal-wheels"

#: A user's first program per distribution: what its README shows, through its entry points.
FIRST_PROGRAMS = {
    "hypergl-compiler": """
import hypergl_compiler as hc
print("hypergl_compiler", hc.__version__)
out = subprocess.run([BIN / "hgb", "--help"], capture_output=True, text=True)
assert out.returncode == 0 and "dis" in out.stdout, out
print("hgb --help: ok")
""",
    "py-gpu": """
import py_gpu
from importlib.metadata import entry_points
names = sorted(e.name for e in entry_points(group="py_gpu.backends"))
print("py_gpu", py_gpu.__version__, "backends declared:", names)
backend = py_gpu.select_backend("cpu")
frame = py_gpu.FrameBuffer.new(8, 8)
print("select_backend('cpu'):", type(backend).__name__, "frame", frame.width, "x", frame.height)
""",
    "hypergl-core": """
import hypergl
ctx = hypergl.context()
target = ctx.framebuffer((64, 64))
tri = ctx.pipeline(
    vertex_shader="#version 430\\nvoid main() { gl_Position = vec4("
    "vec2(gl_VertexID == 1, gl_VertexID == 2) * 4.0 - 1.0, 0.0, 1.0); }",
    fragment_shader="#version 430\\nout vec4 c; void main() { c = vec4(0.1, 0.6, 0.2, 1); }")
cmd = ctx.command_buffer()
cmd.bind_framebuffer(target)
cmd.clear(color=(0, 0, 0, 1))
cmd.bind_pipeline(tri)
cmd.draw(3)
cmd.end()
stats = cmd.submit()
print("hypergl", hypergl.__version__, "draws", stats.draws, "pixel", target.read()[32, 32])
info = subprocess.run([BIN / "hypergl", "info"], capture_output=True, text=True)
assert info.returncode == 0, info.stderr
print("hypergl info:", info.stdout.strip().splitlines()[0])
""",
    "hypergl-culverin": """
import culverin
import hypergl, hypergl_culverin
world = culverin.PhysicsWorld(settings={"max_bodies": 64})
ctx = hypergl.context()
bridge = ctx.bridge("culverin", world, capacity=64)  # the entry point hypergl.bridges:culverin
bridge.create_body(pos=(0, 2, 0), size=0.5, shape=culverin.SHAPE_SPHERE, color=(1, 0.5, 0.1))
for _ in range(10):
    bridge.step(1 / 60)
print("hypergl_culverin", hypergl_culverin.__version__, type(bridge).__name__,
      "synced", bridge.sync(), "bodies")
""",
    "hypergl-mujoco": """
import mujoco
import hypergl, hypergl_mujoco
model = mujoco.MjModel.from_xml_string(
    '<mujoco><worldbody><geom type="plane" size="1 1 .1"/><body pos="0 0 .5"><freejoint/>'
    '<geom size=".2"/></body><camera name="c" pos="0 -2 .5" xyaxes="1 0 0 0 0 1"/>'
    '</worldbody></mujoco>')
worlds = [mujoco.MjData(model) for _ in range(2)]
for data in worlds:
    mujoco.mj_forward(model, data)
ctx = hypergl.context()
renderer = hypergl_mujoco.BatchRenderer(model, 2, cameras=["c"], context=ctx)
result = renderer.render(worlds)
bridge = ctx.bridge("mujoco", worlds)  # hypergl.bridges:mujoco, the geoms' record source
print("hypergl_mujoco", hypergl_mujoco.__version__, type(renderer).__name__,
      result.rgb.shape, "geoms seen", sorted(set(result.segmentation.ravel().tolist())),
      type(bridge).__name__, bridge.capacity, "records")
""",
    "hypergl-rl": """
import hypergl_rl
with hypergl_rl.BatchRenderer(num_envs=4, width=32, height=32) as renderer:
    renderer.look_at(eye=(0.0, 3.0, 4.0), target=(0.0, 0.0, 0.0))
    renderer.radius[:, 0] = 0.5
    frames = renderer.render()
print("hypergl_rl", hypergl_rl.__version__, "BatchRenderer", frames.shape)
""",
}


#: What a user installs: hypergl-mujoco depends on no MuJoCo (a user's own is kept), so a
#: user starting from nothing names one through an extra.
REQUIREMENT = {"hypergl-mujoco": "hypergl-mujoco[core]"}


def extras(dist: str) -> str:
    """The '[...]' of what a user installs of `dist` ('' for none)."""
    return REQUIREMENT.get(dist, dist).removeprefix(dist)


_report = Reporter("rehearsal")
say, fail, run = _report.say, _report.fail, _report.run


def our_files(dist_dir: Path) -> list[Path]:
    files = sorted([*dist_dir.glob("*.whl"), *dist_dir.glob("*.tar.gz")])
    if len(files) != 2 * len(FIRST_PROGRAMS):
        fail(f"{dist_dir} holds {len(files)} wheels and sdists, expected "
             f"{2 * len(FIRST_PROGRAMS)}: run python3 tools/dev.py dist first")  # fmt: skip
    return files


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_serving(url: str, server: subprocess.Popen, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            fail(f"pypiserver exited with {server.returncode} before serving")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    fail(f"pypiserver did not answer at {url} within {seconds:.0f} s")


def download_third_party(wheels: list[Path]) -> None:
    """Every third-party wheel our wheels need (with the extras of REQUIREMENT), cached
    between runs."""
    THIRD_PARTY.mkdir(parents=True, exist_ok=True)
    say(f"third-party wheels into {THIRD_PARTY} (cached)")
    # each wheel with the extras a user names (pip takes "path.whl[extra]")
    named = [str(w) + extras(w.name.split("-")[0].replace("_", "-")) for w in wheels]
    run([sys.executable, "-m", "pip", "download", "-q", "--only-binary", ":all:",
         "--find-links", wheels[0].parent, "-d", THIRD_PARTY, *named])  # fmt: skip
    for ours in wheels:  # pip download copies the wheels it was given: ours are uploaded
        (THIRD_PARTY / ours.name).unlink(missing_ok=True)


def install_alone(dist: str, index: str, work: Path) -> Path:
    env = work / dist
    run([sys.executable, "-m", "venv", env])
    python = env / "bin" / "python"
    report = work / f"{dist}-install.json"
    run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
         "--index-url", index, "--only-binary", ":all:", "--report", report,
         REQUIREMENT.get(dist, dist)])  # fmt: skip
    installed = json.loads(report.read_text())["install"]
    ours = {item["metadata"]["name"]: item["download_info"]["url"] for item in installed
            if item["metadata"]["name"] in FIRST_PROGRAMS}  # fmt: skip
    for name, url in ours.items():
        if not url.startswith(index.removesuffix("simple/")):
            fail(f"{name} came from {url}, not the rehearsal index")
    say(f"{dist}: installed alone with {len(installed) - 1} dependencies "
        f"({', '.join(sorted(ours))} from 127.0.0.1)")  # fmt: skip
    return python


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="tools/dev.py release-rehearsal",
                                     description=__doc__.split("\n")[0])  # fmt: skip
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="wheels and sdists")
    args = parser.parse_args(argv)
    started = time.monotonic()
    dist_dir = args.dist.resolve()
    if not list(dist_dir.glob("*.whl")):
        say(f"no wheels in {dist_dir}: building them (tools/dist.py --build-only)")
        run([sys.executable, ROOT / "tools" / "dist.py", "--out", dist_dir, "--build-only"])
    files = our_files(dist_dir)
    run([sys.executable, "-m", "twine", "check", "--strict", *files])
    say(f"twine check --strict: {len(files)} files pass")
    download_third_party([f for f in files if f.suffix == ".whl"])

    work = Path(tempfile.mkdtemp(prefix="hypergl-rehearsal-"))  # outside the checkout
    served = work / "index"
    served.mkdir()
    for wheel in THIRD_PARTY.glob("*.whl"):
        (served / wheel.name).symlink_to(wheel)
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    log = (work / "pypiserver.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "pypiserver", "run", "--host", "127.0.0.1", "--port", str(port),
         "--disable-fallback", "--authenticate", ".", "--passwords", ".", str(served)],
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        wait_until_serving(url + "simple/", server)
        say(f"pypiserver on {url} (no fallback to PyPI), serving {served}")
        run([sys.executable, "-m", "twine", "upload", "--non-interactive", "--disable-progress-bar",
             "--repository-url", url, "-u", "rehearsal", "-p", "rehearsal", *files],
            capture_output=True, text=True)  # fmt: skip
        say(f"twine upload: {len(files)} files to {url}")
        for dist, program in FIRST_PROGRAMS.items():
            python = install_alone(dist, url + "simple/", work)
            # The venv's console scripts are in its bin/, which is not on PATH.
            prelude = "import subprocess, sys, pathlib\nBIN = pathlib.Path(sys.executable).parent\n"
            result = run([python, "-c", prelude + program], capture_output=True, text=True,
                         cwd=work)  # fmt: skip
            for line in result.stdout.strip().splitlines():
                say(f"  {dist}: {line}")
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        say(f"pypiserver stopped (exit {server.returncode})")
        shutil.rmtree(work, ignore_errors=True)
    say(f"ok in {time.monotonic() - started:.0f} s: every distribution installed alone from "
        f"127.0.0.1 and ran its first program")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
