"""The CI and release workflows and the wheel configuration agree with the repository.

GitHub runs them, not this suite; this checks what can go stale here: the tag prefixes
are the distributions, CI runs the README's test command, the commands they call exist,
and cibuildwheel builds what the project promises.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
DISTRIBUTIONS = sorted(p.name for p in (ROOT / "packages").iterdir() if p.is_dir())


def workflow(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text())


def steps(flow: dict) -> list[str]:
    return [s.get("run", "") + s.get("uses", "") for j in flow["jobs"].values()
            for s in j.get("steps", [])]  # fmt: skip


def test_release_tags_are_one_per_distribution():
    flow = workflow("release.yml")
    tags = flow[True]["push"]["tags"]  # YAML 1.1 reads the key `on` as True
    assert sorted(tags) == sorted(f"{dist}-v*" for dist in DISTRIBUTIONS)
    assert flow["jobs"]["publish"]["permissions"]["id-token"] == "write"
    assert any("pypa/gh-action-pypi-publish" in s for s in steps(flow))
    assert any("tools/test_installed.py" in s for s in steps(flow))


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    assert "python3 tools/dev.py test" in readme
    assert any("python3 tools/dev.py test" in s for s in steps(workflow("ci.yml")))


def test_cibuildwheel_builds_abi3_and_free_threaded_wheels():
    config = tomllib.loads((ROOT / "packages" / "hypergl-core" / "pyproject.toml").read_text())
    assert config["tool"]["scikit-build"]["wheel"]["py-api"] == "cp312"
    cibw = config["tool"]["cibuildwheel"]
    assert cibw["build"] == ["cp312-*", "cp314t-*"]
    assert cibw["manylinux-x86_64-image"] == cibw["manylinux-aarch64-image"] == "manylinux_2_28"
    assert "tools/test_installed.py" in cibw["test-command"]
    assert (ROOT / "tools" / "test_installed.py").exists()


def test_no_platform_that_cannot_build_blocks_publishing():
    """Every core-wheel platform must build: a failing one would stop every release."""
    matrix = workflow("release.yml")["jobs"]["core-wheels"]["strategy"]["matrix"]["os"]
    assert not [os for os in matrix if os.startswith("windows")], (
        "Windows is in the release matrix: the engine must compile there first"
    )
