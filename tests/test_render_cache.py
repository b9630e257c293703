"""The plugin examples-render-cache: a page is rendered again only when what it is made of changed.

On copies of the fixture site (tests/site) with the plugin, built as `mkdocs build` builds them
(each build a process of its own: on_startup, build, on_shutdown), without running the
examples. ``renders`` counts the pages that went through Python-Markdown.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from pathlib import Path

import helpers
import jinja2
import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort
from mkdocs.structure.pages import Page

from mkdocs_examples import yaml_files
from mkdocs_examples.site import render_cache

FIXTURE = Path(__file__).parent / "site"


def with_render_cache(root: Path, options: str = "") -> None:
    """The site at ``root`` with the plugin examples-render-cache after its other plugins, given ``options``
    (YAML of a mapping, as written after the plugin's name)."""
    config = root / "mkdocs.yml"
    listed = f"  - examples-render-cache{options}\n"
    config.write_text(config.read_text().replace("markdown_extensions:\n", f"{listed}markdown_extensions:\n", 1))


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    shutil.copytree(FIXTURE, root)
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - examples:\n", "  - examples:\n      enabled: false\n", 1))
    with_render_cache(root)
    (root / "docs" / "en" / "more.md").write_text("# More\n\n```python\nx = 1\n```\n\n## A section\n")
    (root / "docs" / "zh" / "more.md").write_text("# 更多\n\n```python\nx = 1\n```\n\n## 一节\n")
    return root


@pytest.fixture
def renders(monkeypatch) -> list[str]:
    """The pages rendered from their Markdown, in order."""
    done: list[str] = []
    real = Page.render

    def render(self, config, files):
        done.append(self.file.src_uri)
        real(self, config, files)

    monkeypatch.setattr(Page, "render", render)
    return done


def build_site(root: Path) -> dict[str, bytes]:
    helpers.build_site(root)
    return helpers.tree(root / "site")


def test_a_second_build_renders_no_page_and_writes_the_same_site(site, renders):
    first = build_site(site)
    assert sorted(renders) == ["en/index.md", "en/more.md", "zh/index.md", "zh/more.md"]
    renders.clear()
    second = build_site(site)
    assert renders == []
    differ = [name for name in first if first[name] != second[name] and not name.startswith("sitemap")]
    assert sorted(first) == sorted(second) and not differ, differ
    assert "A section" in second["more/index.html"].decode()  # the table of contents came back too


def test_a_changed_page_alone_is_rendered_again(site, renders):
    build_site(site)
    renders.clear()
    page = site / "docs" / "en" / "more.md"
    page.write_text(page.read_text().replace("x = 1", "x = 2"))
    built = build_site(site)
    assert renders == ["en/more.md"]
    assert '<span class="mi">2</span>' in built["more/index.html"].decode()
    assert len(list((site / ".cache" / "pages").glob("*.json"))) == 4  # the old render of the page is gone


def test_a_new_page_renders_itself_and_the_pages_whose_links_now_resolve_differently(site, renders):
    page = site / "docs" / "en" / "more.md"
    page.write_text(page.read_text() + "\nSee [the new section](new/).\n")  # no file yet: an INFO line, no warning
    build_site(site)
    renders.clear()
    for lang in ("en", "zh"):
        (site / "docs" / lang / "new").mkdir()
        (site / "docs" / lang / "new" / "index.md").write_text("# New\n")
    built = build_site(site)
    # the index pages link to nothing that changed: taken from the cache, as zh/more.md is
    assert sorted(renders) == ["en/more.md", "en/new/index.md", "zh/new/index.md"]
    assert 'href="../new/"' in built["more/index.html"].decode()


def test_a_changed_navigation_renders_no_page_and_a_changed_configuration_every_page(site, renders):
    build_site(site)
    renders.clear()
    config = site / "mkdocs.yml"
    config.write_text(config.read_text() + "nav:\n- index.md\n- More: more.md\n")  # the navigation only
    built = build_site(site)
    assert renders == []
    assert "More" in built["index.html"].decode()
    config.write_text(config.read_text().replace("site_name: Fixture", "site_name: Fixture 2"))
    build_site(site)
    assert len(renders) == 4


def test_the_navigation_is_all_that_is_left_out_of_mkdocs_yml():
    text = "site_name: A\nnav:\n- Home: index.md\n- Part:\n    - a.md\n\n  # note\nplugins:\n  - i18n:\n"
    text += "      languages:\n        - locale: zh\n          nav_translations:\n            Home: 首页\n"
    text += "          name: 中文\n"
    text += "markdown_extensions:\n  - toc:\n"
    text += "      slugify: !!python/object/apply:pymdownx.slugs.slugify {kwds: {case: lower}}\n"
    kept = render_cache._without_navigation(text)
    assert yaml_files.loads(kept) == {
        "site_name": "A", "plugins": [{"i18n": {"languages": [{"locale": "zh", "name": "中文"}]}}],
        "markdown_extensions": [{"toc": {"slugify": None}}],  # a tag the lenient loader reads as None
    }  # fmt: skip
    assert "case: lower" in kept  # a tag's arguments are kept as written: another slugify is another configuration
    assert render_cache._without_navigation(text.replace("case: lower", "case: none")) != kept
    assert render_cache._without_navigation(text.replace("# note", "# another note")) == kept  # comments go


def test_a_build_with_a_warning_keeps_none_of_its_renders_so_the_warning_comes_again(site, renders, caplog):
    caplog.set_level(logging.WARNING)
    build_site(site)
    page = site / "docs" / "en" / "more.md"
    page.write_text(page.read_text() + "\n[broken](nowhere.md)\n")
    for _ in range(2):
        renders.clear()
        caplog.clear()
        build_site(site)
        assert renders == ["en/more.md"]
        assert "nowhere.md" in caplog.text and "not found among documentation files" in caplog.text


def test_an_entry_that_is_not_one_of_ours_is_a_miss(site, renders):
    build_site(site)
    for entry in (site / ".cache" / "pages").glob("*.json"):
        entry.write_text('{"content": 1}')
    renders.clear()
    built = build_site(site)
    assert len(renders) == 4 and "A section" in built["more/index.html"].decode()


def site_with_options(tmp_path: Path, options: str) -> Path:
    """A copy of the fixture, its examples off, whose examples-render-cache has ``options``."""
    root = tmp_path / "site"
    shutil.copytree(FIXTURE, root)
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - examples:\n", "  - examples:\n      enabled: false\n", 1))
    with_render_cache(root, options)
    return root


def test_the_renders_and_templates_go_to_the_folders_of_the_options_relative_to_mkdocs_yml(tmp_path, renders):
    root = site_with_options(tmp_path, ": {folder: kept/renders, templates: kept/jinja}")
    build_site(root)
    assert len(list((root / "kept" / "renders").glob("*.json"))) == 2  # each language's index page
    assert list((root / "kept" / "jinja").iterdir())  # Jinja's compiled templates
    assert not (root / ".cache" / "pages").exists() and not (root / ".cache" / "jinja").exists()
    renders.clear()
    build_site(root)
    assert renders == []  # read back from there


def test_a_new_version_of_a_package_of_the_option_renders_every_page_again(tmp_path, renders, monkeypatch):
    root = site_with_options(tmp_path, ": {packages: [mkdocs, jinja2]}")
    build_site(root)
    real = render_cache.package_version
    versions = {"jinja2": real("jinja2"), "mkdocs-material": real("mkdocs-material")}
    monkeypatch.setattr(render_cache, "package_version", lambda name: versions.get(name) or real(name))
    versions["mkdocs-material"] = "0.0.1"  # not listed: no input of a render
    renders.clear()
    build_site(root)
    assert renders == []
    versions["jinja2"] = "0.0.1"
    build_site(root)
    assert sorted(renders) == ["en/index.md", "zh/index.md"]  # every page of the fixture


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ("{folder: 3}", "option 'folder': Expected type: <class 'str'>"),
        ("{templates: [a, b]}", "option 'templates': Expected type: <class 'str'>"),
        ("{packages: mkdocs}", "option 'packages': Expected a list of items"),
    ],
)
def test_a_bad_option_is_mkdocs_configuration_error_naming_it(tmp_path, caplog, options, error):
    root = tmp_path / "site"
    shutil.copytree(FIXTURE, root)
    with_render_cache(root, f": {options}")
    with pytest.raises(Abort):
        load_config(str(root / "mkdocs.yml"))
    assert f"Plugin 'examples-render-cache' {error}" in caplog.text


def test_a_projects_own_extension_is_keyed_by_the_project_modules_it_takes_its_rules_from(tmp_path, monkeypatch):
    import mkdocs_examples.cjk
    from mkdocs_examples.site import cjk  # its rule, `joins`, is mkdocs_examples/cjk.py's

    before = render_cache._named(cjk.CJKLineBreaks())
    changed = tmp_path / "cjk.py"
    changed.write_text(Path(mkdocs_examples.cjk.__file__).read_text() + "\n# a changed rule\n")
    monkeypatch.setattr(mkdocs_examples.cjk, "__file__", str(changed))
    assert render_cache._named(cjk.CJKLineBreaks()) != before  # every page rendered with the old rule goes


# --- the layouts of `mkdocs serve`'s rebuilds ------------------------------------------------------


@pytest.fixture
def layouts(monkeypatch) -> list[str]:
    """The pages laid out in the theme's page template (main.html), in order."""
    done: list[str] = []
    real = jinja2.Template.render

    def render(self, *args, **kwargs):
        if self.name == "main.html":
            done.append(dict(*args, **kwargs)["page"].file.src_uri)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(jinja2.Template, "render", render)
    return done


def serve(root: Path) -> tuple[Callable[[], dict[str, bytes]], Callable[[], None]]:
    """`mkdocs serve` of ``root`` started: its rebuild (which returns the site it wrote), and its end."""
    started = load_config(str(root / "mkdocs.yml"))
    started.plugins.on_startup(command="serve", dirty=False)

    def rebuild() -> dict[str, bytes]:  # as `mkdocs serve` does: the config read again, the plugins kept
        build(load_config(str(root / "mkdocs.yml")))
        return {k: v for k, v in helpers.tree(root / "site").items() if not k.startswith("sitemap")}

    return rebuild, lambda: started.plugins.on_shutdown()


def test_a_serve_rebuild_lays_out_only_the_changed_page_and_writes_what_a_new_serve_does(site, layouts):
    rebuild, stop = serve(site)
    try:
        rebuild()
        assert sorted(layouts) == ["en/index.md", "en/more.md", "zh/index.md", "zh/more.md"]
        layouts.clear()
        page = site / "docs" / "en" / "more.md"
        page.write_text(page.read_text() + "\nA new sentence.\n")
        rebuilt = rebuild()
        assert layouts == ["en/more.md"]
        assert "A new sentence." in rebuilt["more/index.html"].decode()
    finally:
        stop()
    rebuild, stop = serve(site)  # a new `mkdocs serve`, which lays out every page
    try:
        assert rebuild() == rebuilt
    finally:
        stop()


def test_a_serve_rebuild_lays_out_every_page_again_when_a_title_the_navigation_shows_changed(site, layouts):
    rebuild, stop = serve(site)
    try:
        rebuild()
        layouts.clear()
        page = site / "docs" / "en" / "more.md"
        page.write_text(page.read_text().replace("# More", "# More and more"))
        rebuilt = rebuild()
        assert {"en/index.md", "en/more.md"} <= set(layouts)
        assert "More and more" in rebuilt["index.html"].decode()  # in the navigation of the other page
    finally:
        stop()


def test_mkdocs_build_lays_out_every_page_each_time(site, layouts):
    build_site(site)
    layouts.clear()
    build_site(site)
    assert len(layouts) == 4
