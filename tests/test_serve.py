"""The fast preview of `mkdocs serve` (hooks/serve.py): one language, no search index; `mkdocs build` unchanged.

On a copy of the fixture site in tests/site, with Material's search plugin and the hook added.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort

ROOT = Path(__file__).parent.parent
FIXTURE = Path(__file__).parent / "site"


def _copy(tmp_path: Path, run_examples: bool = False) -> Path:
    root = tmp_path / "site"
    shutil.copytree(FIXTURE, root)
    config = root / "mkdocs.yml"
    text = config.read_text().replace("plugins:\n", "plugins:\n  - search\n", 1)
    if not run_examples:  # the code without its outputs: no worker to start
        text = text.replace("  - examples:\n", "  - examples:\n      enabled: false\n", 1)
    config.write_text(text + f"hooks:\n  - {ROOT / 'hooks' / 'serve.py'}\n")
    return root


def _build(root: Path, command: str, monkeypatch, preview: str | None = None) -> Path:
    """Build like `mkdocs <command>` does, with PREVIEW set to ``preview`` (None: unset); the site folder."""
    if preview is None:
        monkeypatch.delenv("PREVIEW", raising=False)
    else:
        monkeypatch.setenv("PREVIEW", preview)
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
