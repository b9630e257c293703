"""The site plugins on copies of the fixture site (tests/site): the engine's API, and builds that start clean.

MkDocs keeps a plugin that has ``on_startup`` for the rebuilds of `mkdocs serve` (and for every
later build of the process), so its state outlives a build: a second build in the same process
(each rebuild of `mkdocs serve`, or the next test) must start from nothing of the first. The
examples do not run here (``enabled: false``) unless a test needs their outputs: the site
plugins read only the pages and the engine's API.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config

ROOT = Path(__file__).parent.parent
FIXTURE = Path(__file__).parent / "site"
# the plugin examples-pages with the real site's inventory, as fixture() lists it
PAGES = f"examples-pages: {{inventory: {ROOT / 'data' / 'pytorch_api.json'}}}"


def fixture(tmp_path: Path, *site_plugins: str, plugins: str = "", run: bool = False) -> Path:
    """A copy of the fixture site with the engine's ``site_plugins`` (``examples-…``, by name, with their options
    as YAML after it) after its other plugins, as the real site lists them, and ``plugins`` (YAML list items,
    first)."""
    root = tmp_path / "site"
    shutil.copytree(FIXTURE, root)
    config = root / "mkdocs.yml"
    text = config.read_text().replace("plugins:\n", f"plugins:\n{plugins}", 1)
    if not run:
        text = text.replace("  - examples:\n", "  - examples:\n      enabled: false\n", 1)
    listed = "".join(f"  - {name}\n" for name in site_plugins)
    config.write_text(text.replace("markdown_extensions:\n", f"{listed}markdown_extensions:\n", 1))
    return root


def only_english(config: Path) -> None:
    """The fixture without its Chinese pages."""
    text = config.read_text()
    config.write_text(text.replace("{locale: zh, name: 中文, build: true}", "{locale: zh, name: 中文, build: false}"))


def build_twice(root: Path, between=None, command: str = "serve") -> None:
    """Two builds in one process, as `mkdocs serve` does them (the config read again for the second)."""
    first = load_config(str(root / "mkdocs.yml"))
    first.plugins.on_startup(command=command, dirty=False)
    try:
        build(first)
        if between is not None:
            between()
        build(load_config(str(root / "mkdocs.yml")))
    finally:
        first.plugins.on_shutdown()


def git(root: Path, *args: str, date: str = "2020-01-02T12:00:00") -> None:
    env = dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    command = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "init.defaultBranch=main", *args]
    subprocess.run(command, cwd=root, env=env, check=True, capture_output=True)


def commit_all(root: Path, date: str) -> None:
    git(root, "add", "-A", date=date)
    git(root, "commit", "-q", "-m", f"at {date}", date=date)


def date_of(page: Path) -> str:
    text = page.read_text()
    at = text.index('class="md-source-file__fact"')
    return text[at:].split("</span>", 2)[1].split("<")[0].strip()


# --- examples-pages --------------------------------------------------------------------------------


def test_a_page_shows_the_date_of_a_commit_made_between_two_builds(tmp_path):
    root = fixture(tmp_path, PAGES)
    git(root, "init", "-q")
    commit_all(root, "2020-01-02T12:00:00")
    page = root / "docs" / "en" / "index.md"

    def edit_and_commit() -> None:
        assert date_of(root / "site" / "index.html") == "2020-01-02"
        page.write_text(page.read_text() + "\nOne more line.\n")
        commit_all(root, "2021-03-04T12:00:00")

    build_twice(root, edit_and_commit)
    assert date_of(root / "site" / "index.html") == "2021-03-04"  # git read again, not once per process


def test_a_page_dates_from_the_last_change_of_an_example_it_embeds(tmp_path):
    root = fixture(tmp_path, PAGES)
    git(root, "init", "-q")
    commit_all(root, "2020-01-02T12:00:00")
    (root / "examples" / "two.py").write_text((root / "examples" / "two.py").read_text() + "\n# a comment\n")
    commit_all(root, "2022-05-06T12:00:00")  # the example alone: both pages embed it
    build_twice(root)
    assert date_of(root / "site" / "index.html") == "2022-05-06"
    assert date_of(root / "site" / "zh" / "index.html") == "2022-05-06"


def test_a_404_page_of_a_language_no_longer_built_is_not_written(tmp_path):
    root = fixture(tmp_path, PAGES)
    config = root / "mkdocs.yml"

    def stop_building_chinese() -> None:
        assert (root / "site" / "zh" / "404.html").exists()
        shutil.rmtree(root / "site")  # what is there after the second build, the second build wrote
        only_english(config)

    build_twice(root, stop_building_chinese, command="build")
    assert (root / "site" / "404.html").exists()
    assert not (root / "site" / "zh").exists()  # nothing of the first build's Chinese 404 page


# --- examples-search -------------------------------------------------------------------------------


def search_fixture(tmp_path: Path, terms: str = "{}\n") -> Path:
    """The fixture site with Material's search and examples-search (its own terms: the real site's name its
    pages)."""
    (tmp_path / "terms.yml").write_text(terms)
    return fixture(tmp_path, f"examples-search: {{terms: {tmp_path / 'terms.yml'}}}", plugins="  - search\n")


def test_a_build_in_which_no_page_changed_indexes_no_page_and_loads_no_dictionary(tmp_path):
    """Each page's entries are kept (.cache/search-entries.json); jieba's dictionary is loaded only when needed."""
    root = search_fixture(tmp_path, terms="zh:\n  words: [测试站点]\n")
    page = root / "docs" / "zh" / "index.md"
    page.write_text(page.read_text() + "\n张量的形状决定了广播的结果。\n")
    build = (
        "import json, sys; from mkdocs.commands.build import build; from mkdocs.config import load_config\n"
        "config = load_config('mkdocs.yml'); config.plugins.on_startup(command='build', dirty=False)\n"
        "build(config); config.plugins.on_shutdown()\n"
        "import jieba; print(json.dumps(jieba.dt.initialized))\n"
    )
    indexes, loaded = [], []
    for edit in (None, None, "张量的形状决定了结果。"):
        if edit:
            page.write_text(page.read_text().replace("张量的形状决定了广播的结果。", edit))
        done = subprocess.run([sys.executable, "-c", build], cwd=root, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        loaded.append(json.loads(done.stdout.split()[-1]))
        indexes.append((root / "site" / "zh" / "search" / "search_index.json").read_text())
    assert loaded == [True, False, True]  # the first build, the warm one, and one with a changed page
    assert indexes[0] == indexes[1] != indexes[2]
    assert "测试站点" in indexes[0]  # segmented with the terms' words, from the cache too
    assert "\x7f结果" in indexes[2] and "广播" not in indexes[2]


def test_a_search_index_of_a_language_no_longer_built_is_not_written(tmp_path):
    root = search_fixture(tmp_path)
    config = root / "mkdocs.yml"

    def stop_building_chinese() -> None:
        assert (root / "site" / "zh" / "search" / "search_index.json").exists()
        shutil.rmtree(root / "site")
        only_english(config)

    build_twice(root, stop_building_chinese, command="build")
    assert (root / "site" / "search" / "search_index.json").exists()
    assert not (root / "site" / "zh").exists()


# --- examples-serve --------------------------------------------------------------------------------


def test_the_fast_preview_leaves_no_log_handler_behind(tmp_path, monkeypatch):
    monkeypatch.delenv("PREVIEW", raising=False)
    root = fixture(tmp_path, "examples-serve")
    before = list(logging.getLogger("mkdocs").handlers)
    build_twice(root)  # `serve`: the preview counts warnings with a handler of its own
    assert logging.getLogger("mkdocs").handlers == before


# --- the engine's API ------------------------------------------------------------------------------


def test_the_plugin_says_which_examples_a_page_embeds_and_where_they_are(tmp_path):
    root = fixture(tmp_path)
    page = root / "docs" / "en" / "index.md"
    page.write_text(page.read_text() + "\n/// example | two.py\n///\n\n/// example | missing.py\n///\n")
    config = load_config(str(root / "mkdocs.yml"))
    config.plugins.on_startup(command="serve", dirty=False)  # serve: a missing file shows on the page
    try:
        build(config)
        plugin = config.plugins["examples"]
        assert plugin.examples_of("en/index.md") == ("one.py", "two.py", "missing.py")  # each once, in order
        assert plugin.examples_of("zh/index.md") == ("one.py", "two.py")
        assert plugin.examples_of("nowhere.md") == ()
        assert plugin.examples_dir == (root / "examples").resolve()
        assert plugin.running is False and plugin.executed == ()  # enabled: false
    finally:
        config.plugins.on_shutdown()


def test_a_build_imports_no_module_that_a_page_names_in_code_font(tmp_path):
    """API names are looked up in data/pytorch_api.json alone: a name in prose imports nothing. Importing
    `torch.utils.model_dump.__main__` runs its argparse, which ends the process (rc 2) and, given a file
    named like an argument, loads it as a pickled model."""
    root = fixture(tmp_path, PAGES)
    for lang in ("en", "zh"):
        page = root / "docs" / lang / "index.md"
        page.write_text(
            page.read_text() + "\n`torch.cat`, `nn.Linear`, `torch.set_grad_enabled` and `torch.float32`, but not "
            "`torch.utils.model_dump.__main__` or `torch.no_such_name`.\n"
        )
    build = (
        "import sys; from mkdocs.commands.build import build; from mkdocs.config import load_config\n"
        "config = load_config('mkdocs.yml'); config.plugins.on_startup(command='build', dirty=False)\n"
        "build(config); config.plugins.on_shutdown()\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] == 'torch'))\n"
    )
    done = subprocess.run([sys.executable, "-c", build], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1] == "[]"  # not even torch
    for name in ("torch.utils.model_dump.__main__", "torch.no_such_name"):
        assert f"docs/en/index.md:11: `{name}` is not in PyTorch's documentation" in done.stderr
    html = (root / "site" / "index.html").read_text()
    reference = "https://docs.pytorch.org/docs/stable/generated/"
    assert f'href="{reference}torch.cat.html#torch.cat"' in html
    assert f'href="{reference}torch.nn.Linear.html#torch.nn.Linear"' in html
    grad = "torch.autograd.grad_mode.set_grad_enabled"  # where the docs put it: the inventory's alias
    assert f'href="{reference}{grad}.html#{grad}"' in html
    assert "<code>torch.float32</code>, but" in html  # a value: not linked, no warning
    assert "`torch.float32`" not in done.stderr
