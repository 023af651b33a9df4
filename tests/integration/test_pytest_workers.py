"""tools/dev.py test runs the suite on a pytest-xdist worker per core, a file each, unless
the arguments ask for one process."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from pytest_workers import worker_args  # tools/ is not a package


@pytest.fixture(autouse=True)
def no_override(monkeypatch):
    monkeypatch.delenv("HYPERGL_TEST_WORKERS", raising=False)


def test_a_worker_per_core_each_taking_whole_files_in_collection_order():
    assert worker_args(["-q", "-m", "not slow"], cores=2) == [
        "-n", "2", "--dist", "loadfile", "--no-loadscope-reorder"]  # fmt: skip


@pytest.mark.parametrize("args", [["--pdb"], ["-s"], ["--capture=no"], ["-n", "3"], ["-n4"],
                                  ["--numprocesses=2"], ["-p", "no:xdist"]])  # fmt: skip
def test_arguments_that_need_one_process_or_count_their_own_get_none(args):
    assert worker_args(["-q", *args], cores=8) == []


def test_one_core_or_the_variable_set_to_one_runs_serially(monkeypatch):
    assert worker_args([], cores=1) == []
    monkeypatch.setenv("HYPERGL_TEST_WORKERS", "1")
    assert worker_args([], cores=8) == []
    monkeypatch.setenv("HYPERGL_TEST_WORKERS", "3")
    assert worker_args([], cores=8)[:2] == ["-n", "3"]


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_a_worker_count_that_is_not_one_or_more_is_refused_naming_it(monkeypatch, value):
    monkeypatch.setenv("HYPERGL_TEST_WORKERS", value)
    with pytest.raises(SystemExit, match=f"HYPERGL_TEST_WORKERS='{value}'"):
        worker_args([])
