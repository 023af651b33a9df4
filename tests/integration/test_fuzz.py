"""The .hgb fuzz target (tools/fuzz): its seed corpus, and a short deterministic run."""

from __future__ import annotations

import importlib.util
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


def test_the_seed_corpus_holds_real_scenes_that_verify():
    seeds = sorted(CORPUS.glob("*.hgb"))
    assert len(seeds) >= 4
    for seed in seeds:
        hypergl.verify(hgb.load(seed))


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None,
                    reason="atheris is not installed (no wheel for this platform)")  # fmt: skip
def test_a_short_fuzz_run_finds_nothing(tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    done = subprocess.run(
        [sys.executable, str(TARGET), str(corpus), "-runs=1000", "-seed=17",
         "-max_total_time=60", f"-artifact_prefix={tmp_path}/"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Done 1000 runs" in done.stderr or "DONE" in done.stderr, done.stderr[-1000:]
    assert not list(tmp_path.glob("crash-*")), done.stderr[-3000:]
