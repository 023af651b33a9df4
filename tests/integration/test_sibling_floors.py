"""Each distribution imports from a sibling only what the floor of its declared range has.

tools/sibling_floors.py reads the floor (the oldest release tag the range allows, else the
checkout's version) and checks every import against that version's sources. The checkout is
checked here, and the checker itself on a small git repository with a release tag.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import distributions  # noqa: E402  (tools/ is not a package)
import sibling_floors  # noqa: E402


def test_every_sibling_import_is_in_its_declared_floor():
    assert sibling_floors.problems() == []


def test_every_distribution_is_found_and_ordered_after_what_it_requires():
    ordered = [d.name for d in distributions.distributions()]
    assert sorted(ordered) == sorted(p.name for p in (ROOT / "packages").iterdir()
                                     if (p / "pyproject.toml").exists())  # fmt: skip
    for at, dist in enumerate(distributions.distributions()):
        for sibling in dist.siblings(tuple(dist.extras)):
            assert ordered.index(sibling) < at, (dist.name, sibling)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def write_distribution(root: Path, name: str, version: str, requires: str = "",
                       modules: dict[str, str] | None = None) -> None:  # fmt: skip
    folder = root / "packages" / name
    package = folder / "src" / name
    package.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(textwrap.dedent(f"""\
        [project]
        name = "{name}"
        dynamic = ["version"]
        dependencies = [{f'"{requires}"' if requires else ""}]
        [tool.hatch.build.targets.wheel]
        packages = ["src/{name}"]
        """))  # fmt: skip
    (package / "__init__.py").write_text(f'__version__ = "{version}"\n')
    for module, text in (modules or {}).items():
        (package / f"{module}.py").write_text(text)


def commit(root: Path, message: str, tag: str | None = None) -> None:
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message)
    if tag:
        git(root, "tag", tag)
    distributions.distributions.cache_clear()
    distributions.names.cache_clear()


@pytest.fixture
def repo(tmp_path):
    """`base` released as 0.1.0 (tag base-v0.1.0) with base.old; the checkout's base 0.2.0
    adds base.new and base.added; `user` imports all of them."""
    git(tmp_path, "init", "-q")
    write_distribution(tmp_path, "base", "0.1.0", modules={"old": "def kept(): ...\n"})
    commit(tmp_path, "base 0.1.0", tag="base-v0.1.0")
    write_distribution(tmp_path, "base", "0.2.0", modules={
        "old": "def kept(): ...\ndef added(): ...\n", "new": "THING = 1\n"})  # fmt: skip
    imports = "from base.old import kept, added\n\ndef late():\n    import base.new\n"
    write_distribution(tmp_path, "user", "0.1.0", "base>=0.1,<0.3", {"main": imports})
    commit(tmp_path, "base 0.2.0, user")
    return tmp_path


def test_an_import_newer_than_the_released_floor_is_found(repo):
    found = sibling_floors.problems(repo)
    assert len(found) == 2, found
    assert "imports added from base.old, which base 0.1.0 (base-v0.1.0)" in found[0]
    assert "main.py:1" in found[0] and "the floor of base<0.3,>=0.1" in found[0]
    assert "imports base.new, which base 0.1.0 (base-v0.1.0)" in found[1]
    assert "main.py:4" in found[1]  # a function-level import counts too


def test_a_floor_raised_to_the_checkouts_version_passes(repo):
    write_distribution(repo, "user", "0.1.0", "base>=0.2,<0.3",
                       {"main": "from base.old import added\nimport base.new\n"})  # fmt: skip
    commit(repo, "user needs base 0.2")
    assert sibling_floors.problems(repo) == []


def test_a_floor_that_is_neither_a_release_nor_the_checkout_is_named(repo):
    write_distribution(repo, "user", "0.1.0", "base>=0.3", {"main": "import base\n"})
    commit(repo, "user needs a base nobody made")
    (found,) = sibling_floors.problems(repo)
    assert "user requires base>=0.3" in found and "0.2.0" in found


def test_a_changed_distribution_must_bump_its_released_version(repo):
    git(repo, "tag", "base-v0.2.0")
    (repo / "packages" / "base" / "src" / "base" / "old.py").write_text("def changed(): ...\n")
    commit(repo, "base changed after its 0.2.0 release")
    found = sibling_floors.problems(repo)
    assert any("base: packages/base differs from its release base-v0.2.0" in p for p in found)
