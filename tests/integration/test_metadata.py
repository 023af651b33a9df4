"""Each distribution's metadata says what it is, where it runs, and builds reproducibly.

Classifiers are real trove classifiers, every distribution names the operating systems it
runs on and the Python versions its ``requires-python`` admits, ``[project.urls]`` gives a
Homepage and only https addresses, and build requirements stay within one major version (a
new major release of a build backend must not change a build).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]
DISTRIBUTIONS = sorted(p.name for p in (ROOT / "packages").iterdir() if p.is_dir())
#: Distributions whose suites tools/dev.py test --free-threaded runs on CPython 3.13t.
FREE_THREADED = {"hypergl-compiler", "hypergl-core", "py-gpu"}


def project(dist: str) -> dict:
    return tomllib.loads((ROOT / "packages" / dist / "pyproject.toml").read_text())


@pytest.mark.parametrize("dist", DISTRIBUTIONS)
def test_classifiers_are_real_and_name_os_and_pythons(dist):
    trove = pytest.importorskip("trove_classifiers")
    config = project(dist)["project"]
    classifiers = config["classifiers"]
    assert not set(classifiers) - trove.classifiers, set(classifiers) - trove.classifiers
    assert any(c.startswith("Operating System :: ") for c in classifiers)
    minimum = int(re.fullmatch(r">=3\.(\d+)", config["requires-python"]).group(1))
    versions = sorted(int(c.rsplit(".", 1)[1]) for c in classifiers
                      if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c))  # fmt: skip
    assert versions and versions[0] == minimum, (versions, config["requires-python"])
    free_threaded = any("Free Threading" in c for c in classifiers)
    assert free_threaded == (dist in FREE_THREADED)


@pytest.mark.parametrize("dist", DISTRIBUTIONS)
def test_project_urls_give_a_homepage_over_https(dist):
    urls = project(dist)["project"].get("urls")
    assert urls, f"{dist}: no [project.urls] table"
    assert "Homepage" in urls, urls
    plain = {label: url for label, url in urls.items() if not url.startswith("https://")}
    assert not plain, plain


@pytest.mark.parametrize("dist", DISTRIBUTIONS)
def test_build_requirements_stay_within_a_major_version(dist):
    for requirement in project(dist)["build-system"]["requires"]:
        assert re.search(r">=\s*[\d.]+\s*,\s*<\s*\d+", requirement), requirement


@pytest.mark.parametrize("dist", DISTRIBUTIONS)
def test_distribution_tests_stay_inside_their_distribution(dist):
    """Each distribution's tests also run from its sdist against its wheel (tools/dist.py):
    a path to the checkout around it (``parents[2]`` and up from tests/) is not there."""
    tests = ROOT / "packages" / dist / "tests"
    outside = []
    for path in tests.rglob("*.py"):
        depth = len(path.relative_to(tests).parts) - 1  # folders below tests/
        for found in re.finditer(r"parents\[(\d+)\]", path.read_text(encoding="utf-8")):
            if int(found.group(1)) > depth + 1:
                outside.append(f"{path.relative_to(ROOT)}: {found.group(0)}")
    assert not outside, outside
