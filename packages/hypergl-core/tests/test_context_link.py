"""Resources, readers and replays reach their context only through its ContextLink.

Read with ast: outside context.py, no ``ctx._x`` / ``context._x`` / ``self._context._x``
names a private attribute of Context, except ``context._link`` (the handle itself).
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

import hypergl

SOURCE = Path(hypergl.__file__).resolve().parent
ALLOWED = {"_link"}


def context_private_names() -> set[str]:
    tree = ast.parse((SOURCE / "context.py").read_text())
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Context"]
    names = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    names |= {n.attr for n in ast.walk(cls) if isinstance(n, ast.Attribute)
              and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name)
              and n.value.id == "self"}  # fmt: skip
    return {n for n in names if n.startswith("_") and not n.endswith("__")}


def names_a_context(node: ast.expr) -> bool:
    text = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return text in ("ctx", "context", "_context")


def test_only_the_link_reaches_into_a_context():
    private = context_private_names()
    assert {"_enter", "_native", "_link"} <= private
    bad = []
    for path in sorted(SOURCE.rglob("*.py")):
        if path.name == "context.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and node.attr in private - ALLOWED
                    and names_a_context(node.value)):  # fmt: skip
                bad.append(f"{path.name}:{node.lineno} .{node.attr}")
    assert not bad, "context internals used outside context.py: " + "; ".join(bad)


def test_a_closed_context_is_refused_through_the_link():
    ctx = hypergl.context(device="trace")
    buffer = ctx.buffer(size=4)
    fence = ctx.fence()
    ctx.close()
    for call in (buffer.read, fence.wait):
        try:
            call()
        except hypergl.HyperGLError as exc:
            assert "closed" in str(exc) or "released" in str(exc)
        else:
            raise AssertionError(f"{call} worked on a closed context")


def test_a_resource_releases_itself_through_its_link_never_the_facade():
    """The link owns the handle table and release: resources never call up into Context."""
    tree = ast.parse((SOURCE / "resources.py").read_text())
    up = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute)
          and isinstance(node.value, ast.Attribute) and node.value.attr == "context"
          and node.attr != "__class__"]  # fmt: skip
    assert not up, f"resources.py calls up through .context at lines {up}"
    with hypergl.context(device="trace") as ctx:
        link = ctx._link
        a, b = ctx.buffer(size=16), ctx.buffer(size=16)
        assert link.live_objects() == ctx.live_objects() == [a, b]
        a.release()
        assert a.released and link.live_objects() == [b] and id(a._native) not in link.handles
        ctx.release("all")
        assert b.released and link.handles == {} and ctx.live_objects() == []


def test_loading_a_file_makes_its_resources_through_the_factory_not_the_facade(
    tmp_path, monkeypatch
):
    """One factory serves ctx.<maker>() and the .hgb loader: ctx.load enters Context once."""
    with hypergl.context(device="trace") as ctx:
        target = ctx.framebuffer((4, 4))
        data = ctx.buffer(np.arange(4, dtype=np.float32))
        cmd = ctx.command_buffer()
        cmd.bind_framebuffer(target)
        cmd.bind_storage_range(data, 0, 0, 16)
        cmd.clear(color=(0, 0, 0, 1))
        cmd.end()
        hypergl.save(cmd, tmp_path / "scene.hgb")
        for maker in ("buffer", "framebuffer", "texture", "pipeline", "fence", "readback"):
            monkeypatch.setattr(hypergl.Context, maker, _called_the_facade)
        scene = ctx.load(tmp_path / "scene.hgb")
        made = [obj for obj in ctx.live_objects() if obj not in (target, data)]
        assert sorted(type(obj).__name__ for obj in made) == ["Buffer", "Framebuffer"]
        assert made[0].context is ctx and scene.submit().instructions == 4


def _called_the_facade(*args, **kwargs):
    raise AssertionError("the .hgb loader called a Context maker")
