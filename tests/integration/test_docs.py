"""The documentation site: it builds in strict mode, and every code block in it runs.

``python`` blocks of one page run in order in one namespace, as a reader would type them
(GL pages on real OpenGL: the test is skipped without EGL). ``console`` blocks run their
``$`` commands, except ``pip install`` lines, which must name a distribution of this
repository (and its extras). ``toml`` blocks must parse; ``glsl`` and ``text`` blocks are
shown, not run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
BLOCK = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
SHOWN = {"text", "glsl"}
DISTRIBUTIONS = {
    "hypergl-compiler",
    "hypergl-core",
    "py-gpu",
    "hypergl-culverin",
    "hypergl-mujoco",
    "hypergl-rl",
}


def blocks(page: str) -> list[tuple[str, str]]:
    return [(lang, code) for lang, code in BLOCK.findall((DOCS / page).read_text("utf-8"))]


def test_every_block_has_a_language():
    for page in PAGES:
        for lang, code in blocks(page):
            assert lang, f"{page}: a code block without a language:\n{code[:200]}"
            assert lang in {"python", "console", "toml", *SHOWN}, f"{page}: ```{lang}"


def check_pip_install(line: str, page: str) -> None:
    for requirement in shlex.split(line, comments=True)[2:]:  # a "# why" after it
        if requirement.startswith("-"):
            continue
        name = requirement.split("[")[0]
        assert name in DISTRIBUTIONS, f"{page}: pip install of {name!r}, not one of ours"
        extras = re.findall(r"\[(.*)\]", requirement)
        if extras:
            project = tomllib.loads((ROOT / "packages" / name / "pyproject.toml").read_text())
            declared = project["project"].get("optional-dependencies", {})
            for extra in extras[0].split(","):
                assert extra in declared, f"{page}: {name} has no extra {extra!r}"


def run_console(code: str, page: str, cwd: Path) -> None:
    bin_dir = Path(sys.executable).parent
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    for line in code.splitlines():
        if not line.startswith("$ "):
            continue
        command = line[2:]
        if command.startswith("pip install "):
            check_pip_install(command, page)
            continue
        argv = shlex.split(command)
        if argv[0] == "python":
            argv[0] = sys.executable
        result = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                                timeout=300)  # fmt: skip
        assert result.returncode == 0, f"{page}: {command}\n{result.stdout}{result.stderr}"


RUNNABLE = [p for p in PAGES if any(k in ("python", "console", "toml") for k, _ in blocks(p))]


@pytest.mark.gl
@pytest.mark.parametrize("page", RUNNABLE)
def test_code_blocks_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # blocks that write files write them here
    namespace: dict = {"__name__": "__docs__"}
    for index, (lang, code) in enumerate(blocks(page)):
        if lang == "python":
            exec(compile(code, f"{DOCS / page}:block{index}", "exec"), namespace)
        elif lang == "console":
            run_console(code, page, tmp_path)
        elif lang == "toml":
            tomllib.loads(code)


@pytest.mark.slow
def test_docs_build_in_strict_mode(tmp_path):
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent))
    if mkdocs is None:
        pytest.skip("mkdocs is not installed (it comes with the development environment)")
    # what `python3 tools/dev.py docs` runs, into a temporary folder
    result = subprocess.run(
        [mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "reference" / "isa" / "index.html").exists()
    isa_page = (tmp_path / "site" / "reference" / "isa" / "index.html").read_text()
    assert "jump_table" in isa_page and "read_framebuffer" in isa_page
    api_page = (tmp_path / "site" / "api" / "hypergl" / "index.html").read_text()
    assert 'id="hypergl.Context.command_buffer"' in api_page
