"""The MJCF and URDF fuzz targets (tools/fuzz, issue 36): their seed corpora, the
structure-aware XML mutator, the `hypergl play` seed, and a short deterministic run of
each target."""

from __future__ import annotations

import importlib
import importlib.util
import os
import random
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FUZZ = ROOT / "tools" / "fuzz"
TARGETS = {"mjcf": ("mjcf_target", "corpus_mjcf", "mujoco"),
           "urdf": ("urdf_target", "corpus_urdf", "culverin")}  # fmt: skip


@pytest.fixture
def fuzz_modules(monkeypatch):
    """import tools/fuzz modules for one test only (tools/fuzz stays off sys.path)."""
    monkeypatch.syspath_prepend(str(FUZZ))
    before = set(sys.modules)
    yield importlib.import_module
    for name in set(sys.modules) - before:
        if name in {"xml_mutator", "mjcf_case", "urdf_case", "replay", "mjcf_target",
                    "urdf_target", "_target"}:  # fmt: skip
            sys.modules.pop(name, None)


def flip_bytes(data: bytes, max_size: int) -> bytes:
    """A stand-in for libFuzzer's byte mutator (atheris.Mutate runs only under the fuzzer)."""
    out = bytearray(data or b"\0")
    rng = random.Random(len(out))
    out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out[:max_size])


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_most_xml_mutations_still_parse(fuzz_modules, target):
    pytest.importorskip("atheris")
    module, corpus, _ = TARGETS[target]
    mutator, words = fuzz_modules("xml_mutator"), fuzz_modules(module).WORDS
    parsed = total = 0
    for seed in sorted((FUZZ / corpus).iterdir()):
        data = seed.read_bytes()
        for i in range(200):
            total += 1
            out = mutator.mutate(data, 1 << 16, i, flip_bytes, words)
            text = out.decode("utf-8", "replace")
            body = text.rpartition("]>")[2] if text.startswith("<!DOCTYPE") else text
            try:
                ET.fromstring(body)
                parsed += 1
            except ET.ParseError:
                pass
            data = out if i % 10 else seed.read_bytes()  # chains of mutations, restarted
    assert parsed >= 0.95 * total, (parsed, total)


@pytest.mark.gl
@pytest.mark.parametrize("target", sorted(TARGETS))
def test_the_seed_corpus_has_no_finding(fuzz_modules, target):
    module, corpus, needs = TARGETS[target]
    pytest.importorskip(needs)
    case = fuzz_modules(module.replace("_target", "_case"))
    for seed in sorted((FUZZ / corpus).iterdir()):
        case.check(seed.read_bytes())


def test_the_play_seed_plays_with_the_new_ops(fuzz_modules):
    import hypergl
    from hypergl.play import shown_framebuffer

    seed = FUZZ / "corpus" / "play.hgb"
    ctx = hypergl.context(device="trace")
    scene = ctx.load(seed.read_bytes())
    assert shown_framebuffer(scene.program.resources, None).name == "frame"
    outputs = []
    for frame in range(2):
        scene.submit(clock=frame / 30, keep_registers=True, debug_sink=outputs.append)
    assert len(outputs) == 2 and "[0..16]: 00 00 00 00 01 00 00 00" in outputs[0]
    ctx.close()
    fuzz_modules("replay").check(seed.read_bytes())


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None,
                    reason="atheris is not installed (no wheel for this platform)")  # fmt: skip
@pytest.mark.parametrize("target", sorted(TARGETS))
def test_a_short_fuzz_run_finds_nothing(tmp_path, target):
    module, corpus, needs = TARGETS[target]
    pytest.importorskip(needs)
    shutil.copytree(FUZZ / corpus, tmp_path / "corpus")
    done = subprocess.run(
        [sys.executable, str(FUZZ / f"{module}.py"), str(tmp_path / "corpus"), "-runs=50",
         "-seed=17", "-max_total_time=120", f"-artifact_prefix={tmp_path}/",
         "-rss_limit_mb=12288"],  # as tools/dev.py fuzz: MuJoCo and the engine start at 2.5 GB
        capture_output=True, text=True, timeout=400, cwd=tmp_path,
        env={**os.environ, "HYPERGL_FUZZ_DEVICES": "trace"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Done 50 runs" in done.stderr or "DONE" in done.stderr, done.stderr[-1000:]
    assert not list(tmp_path.glob("crash-*")), done.stderr[-3000:]
