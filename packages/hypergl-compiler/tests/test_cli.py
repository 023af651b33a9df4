"""The hgb console script: exit 0 ok, 1 invalid input (one line, no traceback), 2 usage."""

from __future__ import annotations

import subprocess
import sys

import pytest

import hypergl_compiler
from hypergl_compiler import Program, asm, hgb, isa


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hypergl_compiler.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def scene_file(scene, tmp_path):
    path = tmp_path / "scene.hgb"
    hgb.save(scene, path)
    return path


def test_info(scene_file, scene):
    result = run("info", str(scene_file))
    assert result.returncode == 0, result.stderr
    assert f"instructions: {scene.instruction_count}" in result.stdout
    assert "format:       .hgb 1.1" in result.stdout
    assert "linked (binds: world)" in result.stdout
    assert "vbo" in result.stdout and "meta:         scene = test" in result.stdout


def test_dis_output_assembles_to_the_same_program(scene_file, scene):
    result = run("dis", str(scene_file))
    assert result.returncode == 0, result.stderr
    assert asm(result.stdout) == scene


def test_verify_ok(scene_file):
    result = run("verify", str(scene_file))
    assert result.returncode == 0
    assert "ok" in result.stdout


def test_verify_rejects_an_invalid_program(tmp_path):
    path = tmp_path / "bad.hgb"
    hgb.save(Program(code=isa.encode(isa.BY_NAME["nop"]) + isa.encode(isa.BY_NAME["li"], 9)), path)
    result = run("verify", str(path))
    assert result.returncode == 1
    assert "instruction 1 (li)" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("command", ["info", "dis", "verify"])
def test_corrupt_file_is_exit_1_with_one_line(command, scene_file, tmp_path):
    path = tmp_path / "corrupt.hgb"
    path.write_bytes(scene_file.read_bytes()[:-3])
    result = run(command, str(path))
    assert result.returncode == 1
    assert "at byte 16" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_missing_file_is_exit_1(tmp_path):
    result = run("info", str(tmp_path / "absent.hgb"))
    assert result.returncode == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize("args", [[], ["frobnicate", "x"], ["info"], ["dis", "a", "b"]])
def test_usage_errors_are_exit_2(args):
    assert run(*args).returncode == 2


def test_main_is_callable_in_process(scene_file, capsys):
    from hypergl_compiler.cli import main

    assert main(["verify", str(scene_file)]) == 0
    assert "ok" in capsys.readouterr().out


def test_version():
    result = run("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"hgb {hypergl_compiler.__version__} ")
    assert ".hgb 1.2" in result.stdout and "1.1" in result.stdout


def test_a_short_text_file_is_not_a_hgb_file(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hi\n")
    result = run("info", str(path))
    assert result.returncode == 1
    assert "not a .hgb file" in result.stderr
