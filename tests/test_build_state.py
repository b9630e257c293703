"""What the site's plugins keep for one build (mkdocs_examples.mkdocs.i18n.BuildState): nothing of it
reaches the next build of the same process, as `mkdocs serve` makes them, not even from a build that failed."""

from __future__ import annotations

import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config
from test_site_plugins import PAGES, search_fixture

from mkdocs_examples.mkdocs.i18n import BuildState


def config(nested: bool = False) -> Any:
    """A build's configuration as BuildState reads it: with static-i18n building another language or not."""
    i18n = SimpleNamespace(config={"enabled": True}, building=nested)
    return SimpleNamespace(plugins={"i18n": i18n})


def test_a_state_is_made_when_a_build_starts_and_shared_by_its_nested_language_builds():
    ended: list[object] = []
    state = BuildState(lambda config: object(), ended.append)
    first = state.start(config())
    assert first is not None and state.start(config(nested=True)) is first  # the other language: the same
    assert state.finish(config(nested=True)) is None and state.now is first  # its post_build: still held
    assert state.finish(config()) is first and state.now is None and ended == [first]
    second = state.start(config())
    assert second is not first and ended == [first]


def test_a_failed_build_or_a_new_one_drops_the_state_and_ends_it():
    ended: list[object] = []
    state = BuildState(lambda config: object(), ended.append)
    failed = state.start(config())
    state.drop()  # on_build_error
    assert state.now is None and ended == [failed]
    unfinished = state.start(config())
    assert state.start(config()) is not unfinished and ended == [failed, unfinished]


def test_a_build_that_keeps_nothing_has_no_state():
    state: BuildState[object] = BuildState(lambda config: None, lambda done: pytest.fail("nothing to end"))
    assert state.start(config()) is None and state.finish(config()) is None


FAILING = """\
from pathlib import Path


def on_page_markdown(markdown, *, page, config, files):
    if (Path(config.config_file_path).parent / "fail").exists():
        raise RuntimeError("this build fails")
"""


def test_no_plugin_keeps_anything_of_a_failed_or_finished_build_in_the_same_process(tmp_path: Path):
    root = search_fixture(tmp_path)
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "failing.py").write_text(FAILING)
    text = (root / "mkdocs.yml").read_text()
    listed = f"  - {PAGES}\n  - examples-render-cache\n"
    text = text.replace("markdown_extensions:\n", f"{listed}markdown_extensions:\n", 1)
    text += f"hooks:\n  - {tmp_path / 'hooks' / 'failing.py'}\n"  # after every plugin, at the same priority
    (root / "mkdocs.yml").write_text(text)
    (root / "fail").touch()
    handlers = list(logging.getLogger("mkdocs").handlers)
    serving = ["examples-render-cache"]  # on_startup: MkDocs keeps it for `mkdocs serve`
    plugins = ["examples-search", "examples-pages"]

    first = load_config(str(root / "mkdocs.yml"))
    kept = [first.plugins[name] for name in [*serving, *plugins]]
    assert all(isinstance(kept_by._builds, BuildState) for kept_by in kept)
    first.plugins.on_startup(command="serve", dirty=False)
    try:
        with pytest.raises(RuntimeError, match="this build fails"):
            build(first)
        assert [kept_by._builds.now for kept_by in kept] == [None] * len(kept)
        assert logging.getLogger("mkdocs").handlers == handlers  # the render cache's counter of warnings too
        (root / "fail").unlink()
        second = load_config(str(root / "mkdocs.yml"))
        assert [second.plugins[name] for name in serving] == kept[: len(serving)]  # the same objects
        # any other plugin is the same object where it has on_startup (MkDocs keeps it for `mkdocs serve`), else a
        # new one
        kept += [second.plugins[name] for name in plugins if second.plugins[name] not in kept]
        build(second)
        assert [kept_by._builds.now for kept_by in kept] == [None] * len(kept)
        assert (root / "site" / "zh" / "search" / "search_index.json").is_file()  # the second build went through
    finally:
        first.plugins.on_shutdown()
    assert logging.getLogger("mkdocs").handlers == handlers
