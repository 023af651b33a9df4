"""The package graph points one way: every module's imports (read with ast) obey it.

    hypergl-compiler  <-  hypergl-core  <-  hypergl-culverin
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
}
PROJECT = {"hypergl_compiler", "py_gpu", "hypergl", "hypergl_culverin", "culverin"}
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
                    assert not any(name == p or name.endswith("." + p.split(".")[-1])
                                   for p in plugin_names), f"{path} imports plugin {name}"


def test_no_module_touches_another_distributions_private_names():
    bad = []
    for folder, (own, _allowed) in GRAPH.items():
        for path in modules(folder):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    root = node.module.split(".")[0]
                    if root in PROJECT and root != own:
                        private = [part for part in node.module.split(".")[1:]
                                   if part.startswith("_")]
                        private += [a.name for a in node.names if a.name.startswith("_")]
                        if private:
                            bad.append(f"{path.name}: from {node.module} import {private}")
    assert not bad, "private names across distributions: " + "; ".join(bad)
