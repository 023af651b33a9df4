"""One error root: every exception class of every HyperGL distribution derives from
``HyperGLError``, which the lowest distribution (hypergl-compiler) defines.

Each module of each distribution is imported and every exception class it defines is
checked. py-gpu depends on nothing (not even hypergl-compiler), so its ``PyGpuError``
family is its own. The extension's raw types (``hypergl._core.VerifyFailure``, ...) never
reach a caller: the facade turns each into its HyperGL error (``hypergl._native``,
``Context.pipeline``), which is what is checked here.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import hypergl
import hypergl_compiler

PACKAGES = ["hypergl_compiler", "hypergl", "hypergl_culverin", "hypergl_mujoco", "hypergl_rl"]
# Needs an optional package the development environment may lack.
OPTIONAL = {"hypergl_rl.culverin_reach": "culverin", "hypergl_mujoco.dm_pixels": "dm_env"}
TRANSLATED = {"hypergl._core"}  # raw extension types, translated by the facade


def modules(package: str):
    root = importlib.import_module(package)
    yield root
    for info in pkgutil.walk_packages(root.__path__, f"{package}."):
        if info.name.endswith("__main__") or info.name in TRANSLATED:
            continue
        if info.name in OPTIONAL and importlib.util.find_spec(OPTIONAL[info.name]) is None:
            continue
        yield importlib.import_module(info.name)


def exception_classes(package: str) -> list[type]:
    found = []
    for module in modules(package):
        for _name, value in inspect.getmembers(module, inspect.isclass):
            # A private class is a module's own control flow (urdf_xml's parser stops), caught
            # where it is raised: never what a caller sees.
            private = value.__name__.startswith("_")
            ours = issubclass(value, BaseException) and value.__module__ == module.__name__
            if ours and not private:
                found.append(value)
    return found


def test_the_root_is_the_compilers():
    assert hypergl.HyperGLError is hypergl_compiler.HyperGLError
    assert hypergl.errors.HyperGLError is hypergl_compiler.errors.HyperGLError


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exception_derives_from_the_root(package):
    pytest.importorskip(package)
    classes = exception_classes(package)
    assert classes, f"{package} defines no exception class at all?"
    outside = [f"{cls.__module__}.{cls.__qualname__}" for cls in classes
               if not issubclass(cls, hypergl_compiler.HyperGLError)]  # fmt: skip
    assert not outside, f"exceptions outside HyperGLError: {outside}"
