"""hooks/render_cache.py: a page is rendered again only when what it is made of changed.

On copies of the fixture site (tests/site) with the hook, built as `mkdocs build` builds them
(each build a process of its own: on_startup, build, on_shutdown), without running the
examples. ``renders`` counts the pages that went through Python-Markdown.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import helpers
import pytest
from mkdocs.structure.pages import Page

ROOT = Path(__file__).parent.parent
FIXTURE = Path(__file__).parent / "site"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    shutil.copytree(FIXTURE, root)
    config = root / "mkdocs.yml"
    text = config.read_text().replace("  - examples:\n", "  - examples:\n      enabled: false\n", 1)
    config.write_text(text + f"hooks:\n  - {ROOT / 'hooks' / 'render_cache.py'}\n")
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


def test_a_new_file_or_a_changed_configuration_renders_every_page_again(site, renders):
    build_site(site)
    renders.clear()
    for lang in ("en", "zh"):  # relative links could now resolve differently
        (site / "docs" / lang / "new.md").write_text("# New\n")
    build_site(site)
    assert len(renders) == 6
    renders.clear()
    config = site / "mkdocs.yml"
    config.write_text(config.read_text().replace("site_name: Fixture", "site_name: Fixture 2"))
    build_site(site)
    assert len(renders) == 6


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
