"""No import cycle anywhere: among the modules of every distribution and of tools/, counting
every import statement (module level, inside functions, under ``TYPE_CHECKING``).

A cycle hides which module stands below which, even where Python copes with it at run time
(a function-level import, a type-checking one): each edge here is an ``import`` in a file.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIPPED_FOLDERS = {"__pycache__", "tests", "fixtures"}


def module_files() -> dict[str, Path]:
    """Module name -> file, for every distribution's src/ and for tools/ (whose scripts
    import each other as top-level names)."""
    found: dict[str, Path] = {}
    bases = [(package / "src", None) for package in sorted((ROOT / "packages").iterdir())]
    for base, only in [*bases, (ROOT, "tools")]:
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*.py*")):
            parts = path.relative_to(base).parts
            if (only and parts[0] != only) or SKIPPED_FOLDERS & set(parts[:-1]):
                continue
            if path.suffix == ".pyi" and path.with_suffix(".py").exists():
                continue  # a stub stands in only for a compiled module
            if path.suffix not in (".py", ".pyi"):
                continue
            name = ".".join((*parts[:-1], path.stem)).removesuffix(".__init__")
            found[name] = path
            if only == "tools":
                found.setdefault(name.removeprefix("tools."), path)
    return found


def owner(name: str, files: dict[str, Path]) -> str | None:
    while name and name not in files:
        name = name.rpartition(".")[0]
    return name or None


def face_names(package: str, files: dict[str, Path]) -> set[str] | None:
    """The names a package's __init__ binds; `from package import X` of any other name is a
    compiled submodule (the nanobind extension), not the package face."""
    path = files.get(package)
    if path is None or path.stem != "__init__":
        return None
    names = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def import_edges() -> dict[str, dict[str, int]]:
    """Module -> {imported module: the line of the first such import}."""
    files = module_files()
    edges: dict[str, dict[str, int]] = {name: {} for name in files}
    for name, path in files.items():
        if path.suffix == ".pyi":
            continue
        package = name if path.stem == "__init__" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [owner(alias.name, files) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1])
                    full = f"{base}.{node.module}" if node.module else base
                else:
                    full = node.module or ""
                for alias in node.names:
                    if f"{full}.{alias.name}" in files:
                        targets.append(f"{full}.{alias.name}")
                        continue
                    face = face_names(full, files)
                    if face is not None and alias.name not in face and alias.name != "*":
                        continue  # a compiled submodule, not the package face
                    targets.append(owner(full, files))
            for target in targets:
                if target and target != name:
                    edges[name].setdefault(target, node.lineno)
    return edges


def cycles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def describe(component: list[str], edges: dict[str, dict[str, int]]) -> str:
    inside = set(component)
    links = [f"{source}:{line} -> {target}" for source in component
             for target, line in sorted(edges[source].items()) if target in inside]  # fmt: skip
    return f"cycle of {len(component)} ({', '.join(component)}): " + "; ".join(links)


def test_the_walk_sees_every_distribution_and_tools():
    files = module_files()
    for name in ("hypergl_compiler", "hypergl", "py_gpu", "hypergl_culverin", "hypergl_mujoco",
                 "hypergl_rl", "dev"):  # fmt: skip
        assert name in files, name
    assert import_edges()["hypergl"], "the package face imports nothing?"


def test_no_import_cycle_anywhere():
    edges = import_edges()
    found = [describe(component, edges) for component in cycles(edges)]
    assert not found, f"{len(found)} import cycles:\n" + "\n".join(found)
