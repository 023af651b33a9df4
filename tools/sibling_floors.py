"""Does each distribution import from its siblings only what their declared floors provide?

    python tools/sibling_floors.py     # prints each problem; exit 1 when there is one

For each distribution D under packages/ and each sibling S it requires (dependencies and
extras), the floor of D's range on S is found (distributions.floor: the oldest release tag
``S-v<version>`` the range allows, else this checkout's version). Every ``import`` and
``from ... import`` of S's package in D's sources, tests and examples (function-level and
type-checking imports included) must name a module that exists in S at that floor, and a
name defined there (or a submodule). The floor's sources are read from the tag's tree
(``git show``), or from the checkout when the floor is the checkout's version.

It checks names, not behaviour: `tools/dev.py lowest` runs D's tests against S built at
that floor. Also checked: a distribution whose files differ from its release tag of the
same version must bump its version. Run by the development environment's Python.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import distributions  # tools/ is not a package


class Source:
    """The Python files of one distribution's import package at one version."""

    def __init__(self, dist: distributions.Distribution, tag: str | None, root: Path) -> None:
        self.root, self.tag = root, tag
        self.prefix = f"packages/{dist.folder.name}/src/"
        if tag is None:
            src = dist.folder / "src"
            self.files = {p.relative_to(src).as_posix() for p in src.rglob("*.py")}
        else:
            listing = git(root, "ls-tree", "-r", "--name-only", tag, self.prefix)
            self.files = {line.removeprefix(self.prefix) for line in listing.split()
                          if line.endswith((".py", ".pyi"))}  # fmt: skip

    def module_file(self, module: str) -> str | None:
        path = module.replace(".", "/")
        for candidate in (f"{path}.py", f"{path}/__init__.py", f"{path}.pyi"):
            if candidate in self.files:
                return candidate
        return None

    def text(self, file: str) -> str:
        if self.tag is None:
            return (self.root / self.prefix / file).read_text("utf-8")
        return git(self.root, "show", f"{self.tag}:{self.prefix}{file}")

    def provides(self, module: str, name: str) -> bool:
        """``from module import name`` works: a submodule, or a name the module binds."""
        if self.module_file(f"{module}.{name}"):
            return True
        file = self.module_file(module)
        if file is None:
            return False
        bound = top_level_names(ast.parse(self.text(file)))
        return name in bound or "*" in bound or "__getattr__" in bound


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          check=True).stdout  # fmt: skip


def top_level_names(tree: ast.Module) -> set[str]:
    """The names a module binds at import (inside top-level if/try blocks too)."""
    names: set[str] = set()
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody"):
                pending += getattr(node, block, [])
            for handler in getattr(node, "handlers", []):
                pending += handler.body
    return names


def imports_of(package: str, files: list[Path]) -> list[tuple[Path, int, str, str | None]]:
    """(file, line, module, name or None) for every absolute import of ``package``."""
    found = []
    for file in files:
        for node in ast.walk(ast.parse(file.read_text("utf-8"), str(file))):
            if isinstance(node, ast.Import):
                found += [(file, node.lineno, a.name, None) for a in node.names
                          if a.name.split(".")[0] == package]  # fmt: skip
            elif (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                  and node.module.split(".")[0] == package):  # fmt: skip
                found += [(file, node.lineno, node.module, a.name) for a in node.names]
    return found


def unbumped(root: Path) -> list[str]:
    """Distributions whose files changed since the release tag of the version they still carry."""
    problems = []
    for dist in distributions.distributions(root):
        tag = distributions.released(dist.name, root).get(dist.version)
        if tag is None:  # not released yet: the next release
            continue
        folder = f"packages/{dist.folder.name}"
        changed = subprocess.run(["git", "-C", str(root), "diff", "--quiet", tag, "--", folder],
                                 check=False).returncode  # fmt: skip
        if changed:
            problems.append(f"{dist.name}: {folder} differs from its release {tag} but "
                            f"still says {dist.version}: bump its __version__ "
                            "(docs/releasing.md)")  # fmt: skip
    return problems


def problems(root: Path = distributions.ROOT) -> list[str]:
    found = unbumped(root)
    for dist in distributions.distributions(root):
        files = [p for part in ("src", "tests", "examples")
                 for p in sorted((dist.folder / part).rglob("*.py"))
                 if "fixtures" not in p.parts]  # fmt: skip
        for name, specifier in sorted(dist.siblings(tuple(dist.extras)).items()):
            sibling = distributions.by_name(name, root)
            try:
                version, tag = distributions.floor(name, specifier, root)
            except LookupError as exc:
                found.append(f"{dist.name} requires {name}{specifier}: {exc}")
                continue
            source = Source(sibling, tag, root)
            where = f"{name} {version} ({tag or 'this checkout'})"
            for file, line, module, imported in imports_of(sibling.module, files):
                at = f"{file.relative_to(root)}:{line}"
                if source.module_file(module) is None:
                    if found and found[-1].startswith(f"{at}: ") and module in found[-1]:
                        continue  # one line for `from missing import a, b`
                    found.append(f"{at}: {dist.name} imports {module}, which {where}, the floor "
                                 f"of {name}{specifier}, does not have")  # fmt: skip
                elif imported is not None and not source.provides(module, imported):
                    found.append(f"{at}: {dist.name} imports {imported} from {module}, "
                                 f"which {where}, the floor of {name}{specifier}, does not "
                                 "define")  # fmt: skip
    return found


if __name__ == "__main__":
    listed = problems()
    print("\n".join(listed) or "every sibling import is provided by its declared floor")
    sys.exit(1 if listed else 0)
