"""The .hgb fuzz target (tools/fuzz): its seed corpus, its structure-aware mutator, and a
short deterministic run."""

from __future__ import annotations

import importlib.util
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import hypergl
from hypergl_compiler import hgb

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "tools" / "fuzz" / "hgb_target.py"
CORPUS = ROOT / "tools" / "fuzz" / "corpus"


@pytest.fixture
def mutator(monkeypatch):
    """tools/fuzz/mutator.py, imported for one test only: tools/fuzz stays off sys.path
    (its modules are no imports of the packages')."""
    monkeypatch.syspath_prepend(str(TARGET.parent))
    yield importlib.import_module("mutator")
    for name in ("mutator", "replay"):
        sys.modules.pop(name, None)


def test_the_seed_corpus_holds_real_scenes_that_verify():
    seeds = sorted(CORPUS.glob("*.hgb"))
    assert len(seeds) >= 4
    for seed in seeds:
        hypergl.verify(hgb.load(seed))


def flip_bytes(data: bytes, max_size: int) -> bytes:
    """A stand-in for libFuzzer's byte mutator (atheris.Mutate runs only under the fuzzer)."""
    out = bytearray(data or b"\0")
    rng = random.Random(len(out))
    for _ in range(2):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out[:max_size])


def test_most_structure_aware_mutations_parse_and_verify(mutator):
    parsed = verified = total = 0
    for seed in sorted(CORPUS.glob("*.hgb")):
        data = seed.read_bytes()
        for i in range(100):
            total += 1
            try:
                program = hgb.loads(mutator.mutate(data, 1 << 16, i, flip_bytes))
            except hgb.HGBError:
                continue
            parsed += 1
            try:
                hypergl.verify(program)
            except hypergl.VerifyError:
                continue
            verified += 1
    # A byte-flipping fuzzer gets about 1 in 4 through the parser and few past the verifier.
    assert parsed >= 0.75 * total, (parsed, total)
    assert verified >= 0.45 * total, (verified, total)


def test_a_mutation_that_cannot_parse_keeps_its_header_right(mutator):
    data = bytearray((CORPUS / "forest.hgb").read_bytes())
    data[40] ^= 0xFF  # inside the section table: no program to mutate
    out = mutator.mutate(bytes(data), 1 << 16, 3, flip_bytes)
    info = None
    try:
        info = hgb.inspect(out)[0]
    except hgb.HGBError as exc:
        assert "checksum" not in str(exc) and "header says" not in str(exc), exc
    assert info is None or info.size == len(out)


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None,
                    reason="atheris is not installed (no wheel for this platform)")  # fmt: skip
def test_a_short_fuzz_run_finds_nothing(tmp_path):
    """The fuzzer's own machinery (custom mutator, replay), on `trace`: what it finds on
    `gl` is pinned input by input in test_fuzz_findings.py, and CI fuzzes both."""
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    done = subprocess.run(
        [sys.executable, str(TARGET), str(corpus), "-runs=1000", "-seed=17",
         "-max_total_time=60", f"-artifact_prefix={tmp_path}/"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**os.environ, "HYPERGL_FUZZ_DEVICES": "trace"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Done 1000 runs" in done.stderr or "DONE" in done.stderr, done.stderr[-1000:]
    assert not list(tmp_path.glob("crash-*")), done.stderr[-3000:]
