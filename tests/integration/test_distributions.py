"""Each distribution's installed metadata and entry points are as declared."""

from __future__ import annotations

import importlib
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# distribution -> the import package whose __version__ is its single version source
MODULES = {
    "hypergl-compiler": "hypergl_compiler",
    "py-gpu": "py_gpu",
    "hypergl-core": "hypergl",
    "hypergl-culverin": "hypergl_culverin",
    "hypergl-mujoco": "hypergl_mujoco",
    "hypergl-rl": "hypergl_rl",
}

DISTRIBUTIONS = {
    "hypergl-compiler": (">=3.10", set()),
    "py-gpu": (">=3.10", set()),
    "hypergl-core": (">=3.12", {"hypergl-compiler", "numpy"}),
    "hypergl-culverin": (">=3.12", {"hypergl-core", "culverin", "numpy"}),
    "hypergl-mujoco": (">=3.12", {"hypergl-core", "numpy"}),  # MuJoCo: an extra
    "hypergl-rl": (">=3.12", {"hypergl-core", "numpy"}),
}


def runtime_requirements(dist: metadata.Distribution) -> dict[str, str]:
    """Name -> specifier of the requirements that are not behind an extra."""
    found = {}
    for requirement in dist.requires or []:
        if "extra ==" in requirement:
            continue
        name = requirement.split(";")[0].strip()
        for separator in ("<", ">", "=", "!", "~", " "):
            name = name.split(separator)[0]
        found[name.lower()] = requirement[len(name) :].split(";")[0].strip()
    return found


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_metadata_is_as_declared(name):
    dist = metadata.distribution(name)
    requires_python, runtime = DISTRIBUTIONS[name]
    assert dist.metadata["Name"] == name
    assert dist.version == importlib.import_module(MODULES[name]).__version__
    assert dist.metadata["Requires-Python"] == requires_python
    assert set(runtime_requirements(dist)) == runtime


@pytest.mark.parametrize(
    "name", ["hypergl-core", "hypergl-culverin", "hypergl-mujoco", "hypergl-rl"]
)
def test_sibling_dependencies_are_version_ranges(name):
    requirements = runtime_requirements(metadata.distribution(name))
    for sibling in ("hypergl-compiler", "hypergl-core"):
        if sibling in requirements:
            assert ">=" in requirements[sibling] and "<" in requirements[sibling]


def test_py_gpu_backends_group_is_registered():
    names = {ep.name for ep in metadata.entry_points(group="py_gpu.backends")}
    assert {"cpu", "numpy", "numba", "moderngl", "hypergl"} <= names


def test_hypergl_bridges_group_is_registered():
    names = {ep.name for ep in metadata.entry_points(group="hypergl.bridges")}
    assert {"culverin", "mujoco"} <= names


def test_console_scripts_are_registered():
    names = {ep.name for ep in metadata.entry_points(group="console_scripts")}
    assert {"hgb", "hypergl"} <= names


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_license_ships_with_every_distribution(name):
    # each sdist and wheel carries packages/<dist>/LICENSE, the root LICENSE's copy
    assert (ROOT / "packages" / name / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()
    dist = metadata.distribution(name)
    assert dist.metadata["License-Expression"] == "MIT"
    assert "LICENSE" in (dist.metadata.get_all("License-File") or [])


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_changelog_has_a_section_for_the_current_version(name):
    changelog = (ROOT / "packages" / name / "CHANGELOG.md").read_text(encoding="utf-8")
    version = importlib.import_module(MODULES[name]).__version__
    # The version being made reads "## X.Y.Z (not yet released)" until it is tagged
    # (docs/releasing.md); a released one carries its date.
    assert f"\n## {version}" in changelog, f"CHANGELOG.md of {name} has no '## {version}' section"
    assert "\n## Unreleased\n" not in changelog, "a change goes under the version it is in"


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_version_is_written_once(name):
    # pyproject.toml takes the version from __version__ (dynamic), so a release edits one line
    pyproject = (ROOT / "packages" / name / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in pyproject
    assert "\nversion =" not in pyproject
