"""One submit-options object, checked once: CommandBuffer and Scene submit / prepare build it
from the same public keywords; Scene.prepare() checks a loaded file's arguments once."""

from __future__ import annotations

import inspect

import pytest

import hypergl
from hypergl import SceneCompiler
from hypergl.command_buffer import CommandBuffer
from hypergl.scene import Scene


def counting_scene(ctx, tmp_path) -> Scene:
    cmd = ctx.command_buffer()
    sc = SceneCompiler(cmd)
    with sc.loop(1, 3):
        cmd.iaddi(0, 0, 1)
    cmd.end()
    hypergl.save(cmd, tmp_path / "count.hgb")
    return ctx.load(tmp_path / "count.hgb")


def test_scene_prepare_checks_once_and_replays(tmp_path):
    with hypergl.context(device="trace") as ctx:
        scene = counting_scene(ctx, tmp_path)
        prepared = scene.prepare(registers={0: 10}, keep_registers=True)
        prepared.submit()
        assert prepared.stats.registers[0] == 13
        prepared.submit()  # keep_registers: the count carries on
        assert prepared.stats.registers[0] == 16


@pytest.mark.parametrize(("keyword", "value", "error"), [
    ("budget", -1, ValueError), ("vertex_budget", 1 << 64, ValueError),
    ("registers", {9: 1}, ValueError), ("bindings", [1], TypeError),
    ("keep_registers", "yes", TypeError), ("seed", -1, ValueError),
])  # fmt: skip
def test_scene_prepare_refuses_a_bad_option_naming_it(tmp_path, keyword, value, error):
    with hypergl.context(device="trace") as ctx:
        scene = counting_scene(ctx, tmp_path)
        with pytest.raises(error, match=keyword if keyword != "registers" else "register"):
            scene.prepare(**{keyword: value})


def test_every_submit_and_prepare_has_the_same_keywords():
    def keywords(function):
        return [(p.name, p.default) for p in inspect.signature(function).parameters.values()
                if p.kind is p.KEYWORD_ONLY]  # fmt: skip

    expected = keywords(CommandBuffer.submit)
    assert len(expected) == 10
    for function in (CommandBuffer.prepare, Scene.submit, Scene.prepare):
        assert keywords(function) == expected, function.__qualname__


def test_the_options_reach_the_engine_as_one_run_options_made_once():
    from hypergl import _core
    from hypergl.submit_options import submit_options

    options = submit_options(None, 7, None, True, 100, 200, None, None, False, None)
    assert isinstance(options.run, _core.RunOptions)
    assert (options.run.budget, options.run.debug) == (7, True)
    assert (options.run.vertex_budget, options.run.group_budget) == (100, 200)
    with hypergl.context(device="null") as ctx:
        cmd = ctx.command_buffer()
        for _ in range(10):
            cmd.nop()
        cmd.end()
        with pytest.raises(hypergl.VMError, match="budget"):
            cmd.prepare(budget=5).submit()


def test_a_plain_submit_reuses_its_options_and_any_keyword_makes_new_ones():
    """submit() with no keywords skips the checks after the first (the run loop's fixed cost,
    benchmarks/vm_dispatch.py); a keyword, or other budgets, never gets the plain options."""
    from hypergl.submit_options import submit_options

    plain = (None, None, None, False, 1 << 28, 1 << 26, None, None, False, None)
    first = submit_options(*plain)
    assert submit_options(*plain) is first
    assert (
        submit_options(None, 5, None, False, 1 << 28, 1 << 26, None, None, False, None).run.budget
        == 5
    )
    other = submit_options(None, None, None, False, 7, 1 << 26, None, None, False, None)
    assert other is not first and other.run.vertex_budget == 7
    assert submit_options(*plain) is not other  # plain budgets again: plain options
    with hypergl.context(device="null") as ctx:
        cmd = ctx.command_buffer()
        cmd.iaddi(0, 0, 1)
        cmd.end()
        assert cmd.submit(registers=[41]).registers[0] == 42
        assert cmd.submit().registers[0] == 1  # from zeros, not from the registers before
        with pytest.raises(hypergl.VMError, match="budget"):
            cmd.submit(budget=1)
        assert cmd.submit().instructions == 2
