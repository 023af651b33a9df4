"""The package graph points one way: every module's imports (read with ast) obey it.

    hypergl-compiler  <-  hypergl-core  <-  hypergl-culverin
                                       <-  hypergl-mujoco
                                       <-  hypergl-rl  (Culverin behind its [culverin] extra)
    py-gpu (nothing)       ^ the py_gpu plugin module (an extra of core, entry point only)

Third-party imports are allowed only where the distribution declares them; a
plugin module may import its host only when that host is a declared extra.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGES = Path(__file__).resolve().parents[2] / "packages"

# distribution folder -> (its import name, the project packages it may import)
GRAPH = {
    "hypergl-compiler": ("hypergl_compiler", set()),
    "py-gpu": ("py_gpu", set()),
    "hypergl-core": ("hypergl", {"hypergl_compiler"}),
    "hypergl-culverin": ("hypergl_culverin", {"hypergl", "culverin"}),
    "hypergl-mujoco": ("hypergl_mujoco", {"hypergl"}),
    "hypergl-rl": ("hypergl_rl", {"hypergl", "culverin"}),
}
PROJECT = {
    "hypergl_compiler",
    "py_gpu",
    "hypergl",
    "hypergl_culverin",
    "culverin",
    "hypergl_mujoco",
    "hypergl_rl",
}
# Plugin modules: loaded only by their entry point, their host declared as an extra.
PLUGIN_MODULES = {"hypergl/py_gpu_backend.py": {"py_gpu"}}


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def modules(folder: str):
    source = PACKAGES / folder / "src"
    return sorted(source.rglob("*.py"))


@pytest.mark.parametrize("folder", sorted(GRAPH))
def test_imports_follow_the_declared_graph(folder):
    own, allowed = GRAPH[folder]
    bad = []
    for path in modules(folder):
        relative = path.relative_to(PACKAGES / folder / "src").as_posix()
        permitted = allowed | {own} | PLUGIN_MODULES.get(relative, set())
        for root in sorted(imported_roots(path) & PROJECT - permitted):
            bad.append(f"{relative} imports {root}")
    assert not bad, f"{folder} breaks the one-way graph: " + "; ".join(bad)


def test_plugin_modules_are_only_reached_through_entry_points():
    plugin_names = {p.removesuffix(".py").replace("/", ".") for p in PLUGIN_MODULES}
    for folder in GRAPH:
        for path in modules(folder):
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module] if node.level == 0 else [f"?.{node.module}"]
                for name in names:
                    assert not any(
                        name == p or name.endswith("." + p.split(".")[-1]) for p in plugin_names
                    ), f"{path} imports plugin {name}"


def test_no_module_touches_another_distributions_private_names():
    bad = []
    for folder, (own, _allowed) in GRAPH.items():
        for path in modules(folder):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    root = node.module.split(".")[0]
                    if root in PROJECT and root != own:
                        private = [
                            part for part in node.module.split(".")[1:] if part.startswith("_")
                        ]
                        private += [a.name for a in node.names if a.name.startswith("_")]
                        if private:
                            bad.append(f"{path.name}: from {node.module} import {private}")
    assert not bad, "private names across distributions: " + "; ".join(bad)


def private_attributes(folder: str) -> set[str]:
    """Underscore attributes and methods that a distribution's classes define."""
    names = set()
    for path in modules(folder):
        for cls in ast.walk(ast.parse(path.read_text())):
            if not isinstance(cls, ast.ClassDef):
                continue
            for node in cls.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(node.name)
            for node in ast.walk(cls):
                if (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.ctx, ast.Store)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "self"
                ):
                    names.add(node.attr)
    return {name for name in names if name.startswith("_") and not name.endswith("__")}


def compiler_subclasses(tree: ast.Module) -> list[ast.ClassDef]:
    """Classes whose bases name hypergl_compiler (``hypergl_compiler.X`` or imported X)."""
    imported = {alias.asname or alias.name for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module
                and node.module.split(".")[0] == "hypergl_compiler"
                for alias in node.names}  # fmt: skip
    found = []
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef):
            for base in cls.bases:
                root = base
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(root, ast.Name) and (
                    root.id == "hypergl_compiler" or (root is base and root.id in imported)
                ):
                    found.append(cls)
    return found


@pytest.mark.parametrize(
    "folder", ["hypergl-core", "hypergl-culverin", "hypergl-mujoco", "hypergl-rl"]
)
def test_no_module_touches_private_attributes_of_compiler_objects(folder):
    """hypergl reaches hypergl_compiler objects through public names only.

    Any ``x._name`` where the compiler's classes define ``_name`` (and the
    distribution's own classes do not) is flagged; inside a class derived from a
    compiler class every ``self._name`` of the compiler's is flagged, as is any
    ``super()._name``.
    """
    compiler = private_attributes("hypergl-compiler")
    own = private_attributes(folder)
    bad = []
    for path in modules(folder):
        tree = ast.parse(path.read_text())
        subclass_nodes = {id(node) for cls in compiler_subclasses(tree) for node in ast.walk(cls)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or not node.attr.startswith("_"):
                continue
            if node.attr.endswith("__"):
                continue
            receiver = node.value
            through_super = (isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name)
                             and receiver.func.id == "super")  # fmt: skip
            if through_super or (
                node.attr in compiler and (node.attr not in own or id(node) in subclass_nodes)
            ):
                bad.append(f"{path.name}:{node.lineno} .{node.attr}")
    assert not bad, "private attributes of hypergl_compiler objects: " + "; ".join(bad)
