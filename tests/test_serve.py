"""The fast preview of `mkdocs serve` (the plugin examples-serve): one language, no search index; `mkdocs build`
unchanged.

On a copy of the fixture site in tests/site, with Material's search plugin and examples-serve added.
"""

from __future__ import annotations

import fnmatch
import json
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import material  # type: ignore[import-untyped]
import pytest
from helpers import tree
from jinja2 import FileSystemLoader
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import Abort
from mkdocs.livereload import LiveReloadServer
from watchdog.observers import Observer

from mkdocs_examples import page_markdown
from mkdocs_examples.execute.pool import Pool
from mkdocs_examples.mkdocs import pages as mkdocs_pages
from mkdocs_examples.mkdocs import plugin
from mkdocs_examples.publish import notebooks, picker
from mkdocs_examples.recordings.store import Recording, manifest_of, write_folder
from mkdocs_examples.results import CellResult
from mkdocs_examples.source import files
from mkdocs_examples.source.cells import read_example

ROOT = Path(__file__).parent.parent
FIXTURE = Path(__file__).parent / "site"


def _copy(tmp_path: Path, run_examples: bool = False, options: str = "") -> Path:
    """A copy of the fixture with examples-serve after its other plugins, given ``options`` (YAML of a mapping, as
    written after the plugin's name)."""
    root = tmp_path / "site"
    shutil.copytree(FIXTURE, root)
    config = root / "mkdocs.yml"
    text = config.read_text().replace("plugins:\n", "plugins:\n  - search\n", 1)
    if not run_examples:  # the code without its outputs: no worker to start
        text = text.replace("  - examples:\n", "  - examples:\n      enabled: false\n", 1)
    listed = f"  - examples-serve{options}\n"
    config.write_text(text.replace("markdown_extensions:\n", f"{listed}markdown_extensions:\n", 1))
    return root


def _build(root: Path, command: str, monkeypatch, preview: str | None = None, variable: str = "PREVIEW") -> Path:
    """Build like `mkdocs <command>` does, with ``variable`` set to ``preview`` (None: unset); the site folder."""
    if preview is None:
        monkeypatch.delenv(variable, raising=False)
    else:
        monkeypatch.setenv(variable, preview)
    site = root / "site"
    shutil.rmtree(site, ignore_errors=True)
    config = load_config(str(root / "mkdocs.yml"), site_dir=str(site))
    config.plugins.on_startup(command=command, dirty=False)
    try:
        build(config)
    finally:
        config.plugins.on_shutdown()
    return site


def _language(site: Path, path: str = "index.html") -> str:
    html = (site / path).read_text()
    return "zh" if "测试站点" in html else "en" if "<h1" in html and "Fixture</h1>" in html else "?"


def test_serve_builds_only_english_and_no_search_index(tmp_path, monkeypatch):
    site = _build(_copy(tmp_path), "serve", monkeypatch)
    assert _language(site) == "en"
    assert not (site / "zh").exists()
    assert not (site / "search" / "search_index.json").exists()


def test_serve_with_preview_zh_builds_only_chinese_at_the_root(tmp_path, monkeypatch):
    site = _build(_copy(tmp_path), "serve", monkeypatch, preview="zh")
    assert _language(site) == "zh"
    assert 'lang="zh"' in (site / "index.html").read_text()
    assert not (site / "zh").exists()
    assert not (site / "search" / "search_index.json").exists()


@pytest.mark.parametrize(("command", "preview"), [("build", None), ("build", "zh"), ("serve", "all")])
def test_build_and_serve_all_build_both_languages_and_the_search_index(tmp_path, monkeypatch, command, preview):
    site = _build(_copy(tmp_path), command, monkeypatch, preview=preview)
    assert _language(site) == "en" and _language(site, "zh/index.html") == "zh"
    index = json.loads((site / "search" / "search_index.json").read_text())
    locations = {doc["location"].split("#")[0] for doc in index["docs"]}
    assert locations == {"", "zh/"}  # static-i18n's one index of both languages


def test_an_unknown_preview_language_is_an_error(tmp_path, monkeypatch, caplog):
    with pytest.raises(Abort):
        _build(_copy(tmp_path), "serve", monkeypatch, preview="fr")
    assert "PREVIEW=fr: expected one of en, zh or all" in caplog.text


def test_the_variable_of_the_option_is_the_one_read(tmp_path, monkeypatch):
    root = _copy(tmp_path, options=": {variable: SITE_PREVIEW}")
    monkeypatch.setenv("PREVIEW", "all")  # another site's variable: not read
    site = _build(root, "serve", monkeypatch, preview="zh", variable="SITE_PREVIEW")
    assert _language(site) == "zh" and not (site / "zh").exists()


def test_the_language_of_the_option_is_the_preview_where_the_variable_is_unset(tmp_path, monkeypatch):
    root = _copy(tmp_path, options=": {language: zh}")
    site = _build(root, "serve", monkeypatch)
    assert _language(site) == "zh" and not (site / "zh").exists()
    root = _copy(tmp_path / "all", options=": {language: all}")
    site = _build(root, "serve", monkeypatch)
    assert _language(site) == "en" and _language(site, "zh/index.html") == "zh"
    site = _build(root, "serve", monkeypatch, preview="en")  # the variable first
    assert _language(site) == "en" and not (site / "zh").exists()


def test_an_unknown_language_of_the_option_is_an_error_naming_the_option(tmp_path, monkeypatch, caplog):
    with pytest.raises(Abort):
        _build(_copy(tmp_path, options=": {language: fr}"), "serve", monkeypatch)
    assert "examples-serve's option language: fr: expected one of en, zh or all" in caplog.text


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ("{variable: [PREVIEW]}", "option 'variable': Expected type: <class 'str'>"),
        ("{polling: soon}", "option 'polling': Expected type: <class 'float'>"),
        ("{polling: 0}", "option 'polling': Expected a positive number of seconds, got 0.0"),
        ("{language: 2}", "option 'language': Expected type: <class 'str'>"),
    ],
)
def test_a_bad_option_is_mkdocs_configuration_error_naming_it(tmp_path, caplog, options, error):
    root = _copy(tmp_path, options=f": {options}")
    with pytest.raises(Abort):
        load_config(str(root / "mkdocs.yml"))
    assert f"Plugin 'examples-serve' {error}" in caplog.text


def test_serve_rebuilds_show_a_changed_example_its_error_and_its_fix(tmp_path, monkeypatch):
    """Pages whose Markdown is unchanged keep their HTML; a changed example's page is rendered again."""
    root = _copy(tmp_path, run_examples=True)
    monkeypatch.delenv("PREVIEW", raising=False)
    site = root / "site"
    example = root / "examples" / "two.py"
    good = example.read_text()

    def rebuild() -> str:  # as `mkdocs serve` does: the config read again, the plugins kept
        config = load_config(str(root / "mkdocs.yml"), site_dir=str(site))
        build(config)
        return (site / "index.html").read_text()

    config = load_config(str(root / "mkdocs.yml"), site_dir=str(site))
    config.plugins.on_startup(command="serve", dirty=False)
    try:
        build(config)
        first = (site / "index.html").read_text()
        assert "answer: 42" in first
        assert rebuild() == first  # nothing changed: the same page
        example.write_text(good.replace("6 * 7", "7 * 7"))
        assert "answer: 49" in rebuild()
        example.write_text('# %% answer\nraise ValueError("broken")\n')
        broken = rebuild()
        assert "examples/two.py:2: unexpected exception" in broken and "[0, 2, 4]" in broken
        example.write_text(good)
        fixed = rebuild()
        assert "answer: 42" in fixed and "unexpected exception" not in fixed
        assert not (site / "zh").exists()
    finally:
        config.plugins.on_shutdown()


def test_the_fast_preview_of_one_language_is_strict_clean_with_notes_in_the_other(tmp_path, monkeypatch, caplog):
    """An example's Chinese note is for the Chinese pages, which the English preview does not build: no
    warning (it stopped `make serve` under strict: 16 notes of the real site)."""
    root = _copy(tmp_path, run_examples=True)
    example = root / "examples" / "two.py"
    example.write_text('# %% [markdown] lang="zh"\n# 六乘七\n\n' + example.read_text())
    monkeypatch.delenv("PREVIEW", raising=False)
    config = load_config(str(root / "mkdocs.yml"), site_dir=str(root / "site"), strict=True)
    config.plugins.on_startup(command="serve", dirty=False)
    try:
        build(config)  # strict: a warning would abort it
    finally:
        config.plugins.on_shutdown()
    assert "answer: 42" in (root / "site" / "index.html").read_text()
    assert "a note in language" not in caplog.text


# --- what a rebuild reads and renders again ---------------------------------------------------------------


def _record(root: Path, answer: str) -> Path:
    """A recording of examples/two.py as it is, by an older release that printed ``answer``; its file."""
    example = read_example(root / "examples", "two.py")
    env = {"device": "cpu", "torch": "2.4.1", "python": "3.11.7"}
    recording = Recording("two.py", example.keys, "2026-11-22T10:00:00Z", env, 0.1,
                          (CellResult(0), CellResult(1, answer)), ("first", "answer"))  # fmt: skip
    folder = root / "recordings" / "cpu-torch2.4.1-py3.11"
    write_folder(folder, [recording], manifest=manifest_of([recording]))
    return folder / "two.json"


def _serve(root: Path, monkeypatch) -> tuple[Callable[[], str], MkDocsConfig]:
    """`mkdocs serve` of ``root`` started: its rebuild (which returns the English index page), and its config."""
    monkeypatch.delenv("PREVIEW", raising=False)
    config = root / "mkdocs.yml"  # the markup of other releases' outputs needs these, as the real site has them
    config.write_text(config.read_text().replace("  - pymdownx.superfences\n", "  - pymdownx.superfences\n"
                                                 "  - pymdownx.details\n  - pymdownx.tabbed\n"))  # fmt: skip
    site = root / "site"

    def rebuild() -> str:  # as `mkdocs serve` does: the config read again, the plugins kept
        build(load_config(str(config), site_dir=str(site)))
        return (site / "index.html").read_text()

    started = load_config(str(config), site_dir=str(site))
    started.plugins.on_startup(command="serve", dirty=False)
    return rebuild, started


def _counting(monkeypatch, module: Any, name: str, count: Callable[..., None]) -> None:
    """``module.name`` calls ``count`` with its arguments, then does what it did."""
    function = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        count(*args, **kwargs)
        return function(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)


def test_a_rebuild_for_a_changed_example_reads_no_recording_again_and_one_for_a_changed_recording_does(
    tmp_path, monkeypatch
):
    root = _copy(tmp_path, run_examples=True)
    recording = _record(root, "answer: 41\n")
    reads: list[Path] = []
    _counting(monkeypatch, files, "read_regular",
              lambda file, cap: reads.append(Path(file)) if root / "recordings" in Path(file).parents else None)
    example = root / "examples" / "two.py"
    good = example.read_text()
    rebuild, config = _serve(root, monkeypatch)
    try:
        first = rebuild()
        assert "answer: 42" in first and "answer: 41" in first  # the release's own output, in a note
        assert recording in reads and recording.parent / "environment.json" in reads
        reads.clear()
        assert rebuild() == first and reads == []  # nothing changed
        example.write_text(good.replace("6 * 7", "7 * 7"))
        edited = rebuild()
        assert reads == []  # the recordings as read before...
        assert "answer: 49" in edited and "answer: 41" not in edited  # ...of which the edited cell's is stale
        example.write_text(good)
        _record(root, "answer: 40\n")
        again = rebuild()
        assert recording in reads  # a changed recording is read again
        assert "answer: 42" in again and "answer: 40" in again and "answer: 41" not in again
    finally:
        config.plugins.on_shutdown()


def _a_new_serve_writes(root: Path, monkeypatch, rebuilt: dict[str, bytes]) -> None:
    """Check that a new `mkdocs serve` of ``root`` writes the site a rebuild left (``rebuilt``, by helpers.tree)."""
    rebuild, config = _serve(root, monkeypatch)
    try:
        rebuild()
        assert tree(root / "site") == rebuilt
    finally:
        config.plugins.on_shutdown()


def test_a_rebuild_renders_again_only_the_pages_of_a_changed_example_and_writes_what_a_first_build_does(
    tmp_path, monkeypatch
):
    root = _copy(tmp_path, run_examples=True)
    _record(root, "answer: 41\n")
    for lang in ("en", "zh"):
        (root / "docs" / lang / "other.md").write_text("# Other\n\n/// example | one.py\n///\n")
    rendered: list[str] = []
    _counting(monkeypatch, page_markdown, "_render", lambda markdown, *, page, **_: rendered.append(page.src_uri))
    example = root / "examples" / "two.py"
    rebuild, config = _serve(root, monkeypatch)
    try:
        rebuild()
        assert sorted(rendered) == ["en/index.md", "en/other.md"]
        rendered.clear()
        example.write_text(example.read_text().replace("6 * 7", "7 * 7"))
        assert "answer: 49" in rebuild()
        assert rendered == ["en/index.md"]  # the page that embeds two.py; not other.md
        rebuilt = tree(root / "site")
    finally:
        config.plugins.on_shutdown()
    _a_new_serve_writes(root, monkeypatch, rebuilt)  # which renders every page


def test_a_rebuild_reads_the_examples_helper_modules_once_for_all_the_examples(tmp_path, monkeypatch):
    root = _copy(tmp_path, run_examples=True)
    helper = root / "examples" / "_helper.py"  # part of every example's key: any example may import it
    helper.write_text("HELP = 1\n")
    reads: list[Path] = []
    _counting(monkeypatch, Path, "read_bytes", lambda path: reads.append(path) if path == helper else None)
    rebuild, config = _serve(root, monkeypatch)
    try:
        assert "answer: 42" in rebuild()
        assert reads == [helper]  # not once per example
    finally:
        config.plugins.on_shutdown()


def test_a_rebuild_makes_the_downloads_and_picker_data_of_a_changed_example_only(tmp_path, monkeypatch):
    root = _copy(tmp_path, run_examples=True)
    _record(root, "answer: 41\n")  # the torch picker's data is written where recordings are published
    made: list[str] = []
    _counting(monkeypatch, notebooks, "notebook", lambda example, *_, **__: made.append(f"notebook {example.path}"))
    _counting(monkeypatch, picker, "example_data", lambda example, *_: made.append(f"picker {example.path}"))
    example = root / "examples" / "two.py"
    rebuild, config = _serve(root, monkeypatch)
    try:
        rebuild()
        assert sorted(made) == ["notebook one.py", "notebook two.py", "picker one.py", "picker two.py"]
        made.clear()
        example.write_text(example.read_text().replace("6 * 7", "7 * 7"))
        rebuild()
        assert sorted(made) == ["notebook two.py", "picker two.py"]
        downloaded = (root / "site" / "downloads" / "two.ipynb").read_text()
        assert "answer: 49" in downloaded and (root / "site" / "downloads" / "one.ipynb").exists()
    finally:
        config.plugins.on_shutdown()


def test_serve_starts_the_worker_once_it_serves_so_that_the_first_example_edit_waits_for_no_import(
    tmp_path, monkeypatch
):
    root = _copy(tmp_path, run_examples=True)
    rebuild, config = _serve(root, monkeypatch)
    starts: list[Pool] = []
    _counting(monkeypatch, Pool, "start", lambda pool: starts.append(pool))
    server = LiveReloadServer(builder=rebuild, host="127.0.0.1", port=0, root=str(root / "site"))
    try:
        rebuild()  # every result from the cache after the first run of the fixture's examples
        starts.clear()
        rebuild()
        assert starts == []  # a build that runs nothing starts no worker
        config.plugins.on_serve(server, config=config, builder=rebuild)
        assert len(starts) == 1
    finally:
        server.server_close()
        config.plugins.on_shutdown()


def test_a_build_with_no_result_stored_starts_the_worker_with_its_configuration_and_one_with_results_does_not(
    tmp_path, monkeypatch
):
    root = _copy(tmp_path, run_examples=True)
    starts: list[Pool] = []
    _counting(monkeypatch, Pool, "start", lambda pool: starts.append(pool))

    def configure() -> None:  # what `mkdocs build` does before it reads the pages
        config = load_config(str(root / "mkdocs.yml"), site_dir=str(root / "site"))
        config.plugins.on_startup(command="build", dirty=False)
        config.plugins.on_config(config)
        config.plugins.on_shutdown()

    configure()
    assert len(starts) == 1  # an empty cache: every example runs, and the worker imports torch meanwhile
    _build(root, "build", monkeypatch)
    starts.clear()
    configure()
    assert starts == []  # results stored: the worker starts only for an example that must run


@pytest.mark.parametrize(("options", "seconds"), [("", 0.1), (": {polling: 2}", 2.0), (": {polling: 0.25}", 0.25)])
def test_the_observer_looks_as_often_as_the_option_polling_says(tmp_path, options, seconds):
    root = _copy(tmp_path, options=options)
    config = load_config(str(root / "mkdocs.yml"), site_dir=str(root / "site"))
    config.plugins.on_startup(command="serve", dirty=False)
    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(root / "site"))
    try:
        server = config.plugins.on_serve(server, config=config, builder=lambda: None)
        assert isinstance(server.observer, Observer) and server.observer.timeout == seconds
    finally:
        server.server_close()
        config.plugins.on_shutdown()


def test_serve_is_told_of_each_change_by_the_system_and_rebuilds_for_pages_examples_and_mkdocs_yml(
    tmp_path, monkeypatch
):
    root = _copy(tmp_path)
    config = load_config(str(root / "mkdocs.yml"), site_dir=str(root / "site"))
    config.plugins.on_startup(command="serve", dirty=False)
    monkeypatch.delenv("PREVIEW", raising=False)
    build(config)  # `mkdocs serve`'s first build, before it watches
    builds: list[float] = []
    built = threading.Event()

    def rebuild() -> None:  # reads what a build reads, as a build does: no change
        for path in (root / "docs").rglob("*.md"):
            path.read_text()
        builds.append(time.monotonic())
        built.set()

    server = LiveReloadServer(builder=rebuild, host="127.0.0.1", port=0, root=str(root / "site"))
    server.watch(config.docs_dir)  # what `mkdocs serve` watches before the plugins' on_serve
    server.watch(config.config_file_path)
    server = config.plugins.on_serve(server, config=config, builder=rebuild)
    assert isinstance(server.observer, Observer)  # the platform's: inotify here, not polling
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        time.sleep(0.3)  # the observer's first look at the folders
        for changed in (root / "docs" / "en" / "index.md", root / "examples" / "two.py", root / "mkdocs.yml"):
            built.clear()
            builds.clear()
            changed.write_text(changed.read_text() + "\n")
            assert built.wait(5), f"no rebuild for a change of {changed.name}"
            time.sleep(1)  # any rebuild that the first one's reading would start
            assert len(builds) == 1, f"{len(builds)} rebuilds for one change of {changed.name}"
    finally:
        server.shutdown()
        thread.join(5)
        config.plugins.on_shutdown()


def test_a_rebuild_links_the_titles_of_the_code_blocks_of_a_changed_page_only(tmp_path, monkeypatch):
    root = _copy(tmp_path, run_examples=True)
    config = root / "mkdocs.yml"
    config.write_text("repo_url: https://github.com/owner/repo\n" + config.read_text())  # titles link to GitHub
    for lang in ("en", "zh"):
        (root / "docs" / lang / "other.md").write_text("# Other\n\n/// example | one.py\n///\n")
    linked: list[str] = []
    _counting(monkeypatch, plugin, "link_titles", lambda html, *_: linked.append(html))
    rebuild, started = _serve(root, monkeypatch)
    try:
        first = rebuild()
        assert len(linked) == 2 and "github.com/owner/repo/blob/master/examples/two.py" in first
        linked.clear()
        page = root / "docs" / "en" / "other.md"
        page.write_text(page.read_text() + "\nA new sentence.\n")
        assert rebuild() == first  # the index page as it was
        assert len(linked) == 1 and "A new sentence." in linked[0]  # other.md's alone
    finally:
        started.plugins.on_shutdown()


def test_a_rebuild_makes_room_for_the_picker_on_a_changed_page_only(tmp_path, monkeypatch):
    root = _copy(tmp_path, run_examples=True)
    _record(root, "answer: 41\n")  # the picker is on the pages where recordings are published
    for lang in ("en", "zh"):
        (root / "docs" / lang / "other.md").write_text("# Other\n\n/// example | two.py\n///\n")
    roomed: list[str] = []
    _counting(monkeypatch, picker, "with_room", lambda html: roomed.append(html))
    rebuild, started = _serve(root, monkeypatch)
    try:
        first = rebuild()
        assert len(roomed) == 2 and picker.ROOM in first
        roomed.clear()
        page = root / "docs" / "en" / "other.md"
        page.write_text(page.read_text() + "\nA new sentence.\n")
        assert rebuild() == first  # the index page as it was
        assert len(roomed) == 1 and "A new sentence." in roomed[0]  # other.md's alone
        assert picker.ROOM in (root / "site" / "other" / "index.html").read_text()
    finally:
        started.plugins.on_shutdown()


def test_a_rebuild_lists_the_installed_theme_once_and_the_sites_own_templates_each_time(tmp_path, monkeypatch):
    root = _copy(tmp_path)
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace("  name: material\n", "  name: material\n  custom_dir: overrides\n"))
    (root / "overrides").mkdir()
    listed: list[str] = []
    _counting(monkeypatch, FileSystemLoader, "list_templates", lambda loader: listed.extend(loader.searchpath))
    hidden: list[str] = []  # names MkDocs' filter of the theme's files was asked about, in a hidden folder
    _counting(monkeypatch, fnmatch, "fnmatch", lambda name, _: hidden.append(name) if "/." in f"/{name}" else None)
    assert (Path(material.__file__).parent / "templates" / ".icons").is_dir()  # most of Material's files
    rebuild, started = _serve(root, monkeypatch)
    try:
        rebuild()
        assert hidden == []
        # the site's own, then Material's, MkDocs' and the plugins': each once
        assert str(root / "overrides") in listed and len(set(listed)) == len(listed) > 2
        listed.clear()
        (root / "overrides" / "extra.txt").write_text("a static file of the site's theme\n")
        rebuild()
        assert listed == [str(root / "overrides")]
        assert (root / "site" / "extra.txt").is_file()
        rebuilt = tree(root / "site")
    finally:
        started.plugins.on_shutdown()
    _a_new_serve_writes(root, monkeypatch, rebuilt)  # which lists every folder


def test_a_rebuild_finds_the_blocks_of_a_changed_page_only(tmp_path, monkeypatch):
    root = _copy(tmp_path, run_examples=True)
    for lang in ("en", "zh"):
        (root / "docs" / lang / "other.md").write_text("# Other\n\nNo example yet.\n")
    scanned: list[str] = []
    _counting(monkeypatch, mkdocs_pages, "find_blocks", lambda markdown: scanned.append(markdown))
    rebuild, started = _serve(root, monkeypatch)
    try:
        first = rebuild()
        assert len(scanned) == len(list((root / "docs").rglob("*.md")))
        scanned.clear()
        page = root / "docs" / "en" / "other.md"
        page.write_text("# Other\n\n/// example | two.py\n///\n")
        assert rebuild() == first  # the index page as it was
        assert scanned == [page.read_text()]
        assert "answer: 42" in (root / "site" / "other" / "index.html").read_text()  # its blocks, found
    finally:
        started.plugins.on_shutdown()
