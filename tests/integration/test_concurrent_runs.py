"""tools/concurrent_runs.py: the CI's test runs (distributions at their floors, on Debian 11,
MuJoCo legs) a core each, every run's output printed whole, a failure reported as one."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import concurrent_runs  # noqa: E402  (tools/ is not a package)


def _script(lines: int, code: int) -> list[str]:
    body = f"for i in range({lines}): print('line', i, flush=True)\nraise SystemExit({code})"
    return [sys.executable, "-c", body]


def test_every_run_reports_its_result_and_its_output_is_printed_whole(capsys):
    runs = {name: functools.partial(concurrent_runs.captured, _script(50, code))
            for name, code in [("a", 0), ("b", 3), ("c", 0)]}  # fmt: skip
    results = {name: passed for name, passed, seconds in concurrent_runs.each(runs)}
    assert results == {"a": True, "b": False, "c": True}
    printed = capsys.readouterr().out.splitlines()
    # three blocks of 50 lines, none cut into by another run's
    assert printed == [f"line {i}" for i in range(50)] * 3


def test_stderr_is_in_the_output():
    output, passed = concurrent_runs.captured([sys.executable, "-c", "import sys; sys.exit('no')"])
    assert (output, passed) == ("no", False)


def test_the_heaviest_test_folder_starts_first(tmp_path):
    for name, size in [("small", 10), ("large", 1000), ("middle", 100)]:
        (tmp_path / name / "sub").mkdir(parents=True)
        (tmp_path / name / "sub" / "test_x.py").write_text("#" * size)
        (tmp_path / name / "data.bin").write_bytes(b"x" * 10_000)  # not Python: not counted
    folders = {name: tmp_path / name for name in ["small", "large", "middle"]}
    assert concurrent_runs.heaviest_first(folders) == ["large", "middle", "small"]
