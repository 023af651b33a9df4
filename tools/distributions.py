"""The distributions under packages/, read from their own files: one list for every tool.

Each folder of ``packages/`` with a ``pyproject.toml`` is a distribution; its name,
version (``__version__`` of its import package), Python range, dependencies and extras
come from there, so a new distribution joins every tool (dist, lowest, the floors test)
by existing. ``[tool.hypergl] test-extras`` names the extras its tests need (default
``["test"]``). Released versions are the git tags ``<name>-v<version>`` the release
workflow publishes from.

Run by the development environment's Python (``packaging`` is there).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import tomllib
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
VERSION_LINE = re.compile(r'^__version__ = "([^"]+)"$', re.M)


@dataclass(frozen=True)
class Distribution:
    name: str
    folder: Path
    module: str  # the import package
    version: Version
    requires_python: SpecifierSet
    dependencies: tuple[Requirement, ...]
    extras: dict[str, tuple[Requirement, ...]] = field(hash=False)
    test_extras: tuple[str, ...]

    def requirements(self, extras: tuple[str, ...] = ()) -> list[Requirement]:
        """Its dependencies and those of ``extras``, in the order declared."""
        found = list(self.dependencies)
        for extra in extras:
            found += [r for r in self.extras[extra] if r not in found]
        return found

    def siblings(self, extras: tuple[str, ...] = ()) -> dict[str, SpecifierSet]:
        """The other distributions of packages/ it requires, with the range it declares."""
        ours = names(self.folder.parent.parent)
        return {canonicalize_name(r.name): r.specifier for r in self.requirements(extras)
                if canonicalize_name(r.name) in ours}  # fmt: skip


def _module(config: dict) -> str:
    tool = config.get("tool", {})
    packages = (tool.get("hatch", {}).get("build", {}).get("targets", {}).get("wheel", {})
                .get("packages") or tool.get("scikit-build", {}).get("wheel", {})
                .get("packages"))  # fmt: skip
    if not packages or len(packages) != 1:
        raise ValueError(f"expected one wheel package in {config['project']['name']}")
    return Path(packages[0]).name


def read(folder: Path) -> Distribution:
    config = tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))
    project = config["project"]
    module = _module(config)
    init = (folder / "src" / module / "__init__.py").read_text("utf-8")
    match = VERSION_LINE.search(init)
    if match is None:
        raise ValueError(f'no __version__ = "..." line in {folder.name}\'s {module}/__init__.py')
    extras = {name: tuple(map(Requirement, reqs))
              for name, reqs in project.get("optional-dependencies", {}).items()}  # fmt: skip
    default = ["test"] if "test" in extras else []
    test_extras = tuple(config.get("tool", {}).get("hypergl", {}).get("test-extras", default))
    if unknown := sorted(set(test_extras) - set(extras)):
        raise ValueError(f"{folder.name}: [tool.hypergl] test-extras names {unknown[0]!r}, "
                         f"which is not one of its extras {sorted(extras)}")  # fmt: skip
    return Distribution(
        name=canonicalize_name(project["name"]),
        folder=folder,
        module=module,
        version=Version(match.group(1)),
        requires_python=SpecifierSet(project.get("requires-python", "")),
        dependencies=tuple(map(Requirement, project.get("dependencies", []))),
        extras=extras,
        test_extras=test_extras,
    )


@cache
def distributions(root: Path = ROOT) -> tuple[Distribution, ...]:
    """Every distribution of ``root``'s packages/, each after the ones it requires (the build
    and install order)."""
    folders = sorted(p.parent for p in (root / "packages").glob("*/pyproject.toml"))
    found = {d.name: d for d in map(read, folders)}
    ordered: list[Distribution] = []

    def visit(dist: Distribution, path: tuple[str, ...]) -> None:
        if dist in ordered:
            return
        if dist.name in path:
            raise ValueError("distributions require each other: " + " -> ".join((*path, dist.name)))
        for name in sorted(dist.siblings(tuple(dist.extras))):
            visit(found[name], (*path, dist.name))
        ordered.append(dist)

    for dist in found.values():
        visit(dist, ())
    return tuple(ordered)


@cache
def names(root: Path = ROOT) -> frozenset[str]:
    """The distributions' names (each folder's ``project.name``)."""
    return frozenset(
        canonicalize_name(tomllib.loads(p.read_text("utf-8"))["project"]["name"])
        for p in (root / "packages").glob("*/pyproject.toml")
    )


def by_name(name: str, root: Path = ROOT) -> Distribution:
    for dist in distributions(root):
        if dist.name == canonicalize_name(name):
            return dist
    raise KeyError(f"no distribution {name!r} under packages/; there are "
                   f"{', '.join(d.name for d in distributions(root))}")  # fmt: skip


def released(name: str, root: Path = ROOT) -> dict[Version, str]:
    """The released versions of ``name``: its git tags ``<name>-v<version>``, tag by version."""
    prefix = f"{name}-v"
    out = subprocess.run(["git", "-C", str(root), "tag", "--list", f"{prefix}*"],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    return {Version(tag.removeprefix(prefix)): tag for tag in out.split()}


def floor(name: str, specifier: SpecifierSet, root: Path = ROOT) -> tuple[Version, str | None]:
    """The oldest version of sibling ``name`` that ``specifier`` allows, and the tag to build it
    from (None: this checkout). Candidates are the released versions and the checkout's own
    (not yet released: it will be the next release)."""
    checkout = by_name(name, root).version
    candidates = {checkout: None, **released(name, root)}  # a release of that version wins
    allowed = sorted(v for v in candidates if specifier.contains(v, prereleases=True))
    if not allowed:
        raise LookupError(f"no release of {name} and not this checkout's {checkout} satisfies "
                          f"{name}{specifier}")  # fmt: skip
    return allowed[0], candidates[allowed[0]]


def oldest_python(dist: Distribution) -> str:
    """The oldest CPython minor version (``"3.10"``) that ``requires-python`` allows."""
    for minor in range(8, 30):
        if dist.requires_python.contains(f"3.{minor}.0") or dist.requires_python.contains(
            f"3.{minor}.99"
        ):
            return f"3.{minor}"
    raise ValueError(f"{dist.name}: requires-python {dist.requires_python} allows no CPython 3")
