"""Notebook views (hooks/notebook_views.py): each example's executed notebook, a page in each language."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).parent.parent
OTHER_DEVICE = re.compile(r'<div class="tabbed-block">(?:(?!<div class="tabbed-block">).)*?mx-recorded', re.S)
EXAMPLES = sorted(p.relative_to(ROOT / "examples").with_suffix("") for p in (ROOT / "examples").rglob("[!_]*.py"))


def text_of(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


@pytest.mark.parametrize("lang", ["", "zh/"])
def test_every_example_has_a_light_view_in_each_language(real_site, lang):
    site, _ = real_site
    sizes = []
    for stem in EXAMPLES:
        view = site / lang / "notebooks" / stem / "index.html"
        assert view.exists(), f"no view of {stem} in /{lang}"
        page = view.read_text()
        sizes.append(len(page.encode()))
        assert f'<html lang="{lang.strip("/") or "en"}"' in page  # the language's chrome
        assert ("笔记本" if lang else "the notebook") in page
        assert "<style" not in page.split('class="md-content"')[1]  # JupyterLab's 590 KB of inline CSS: gone
        assert "assets/notebook-views.css" in page
        button = re.search(r'<a href="([^"]+\.ipynb)" title="[^"]+" class="md-content__button md-icon" download>', page)
        assert button, f"{view}: no download button"
        source = (view.parent / button[1]).resolve()
        nbformat.validate(nbformat.reads(source.read_text(), as_version=4))
        edit = re.search(r'<a href="([^"]+)" title="[^"]+" class="md-content__button md-icon" rel="edit">', page)
        assert edit and edit[1].endswith(f"/examples/{stem.as_posix()}.py")  # edit the example, not the view
    assert max(sizes) < 250_000, max(sizes)


@pytest.mark.parametrize("lang", ["", "zh/"])
def test_each_page_links_the_view_which_shows_its_outputs(real_site, lang):
    site, _ = real_site
    checked = 0
    for page in sorted((site / lang).rglob("index.html")):
        if (lang == "" and page.relative_to(site).parts[0] == "zh") or "notebooks" in page.parts:
            continue
        text = page.read_text()
        for href in re.findall(r'<a href="([^"]*notebooks/[^"]+/)">(?:notebook view|笔记本视图)</a>', text):
            view = (page.parent / href / "index.html").resolve()
            assert view.is_relative_to((site / lang).resolve()) and view.exists(), f"{page}: {href}"
            shown = text_of(view.read_text())
            # the view holds this build's outputs, not those of a tab of another device (with its "mx-recorded" line)
            own = re.sub(OTHER_DEVICE, "", text)
            outputs = re.findall(r'<div class="language-text highlight">.*?<code>(.*?)</code>', own, re.S)
            for output in outputs[:3]:
                for line in filter(str.strip, text_of(output).splitlines()[:2]):
                    assert line.strip() in shown, f"{view}: {line!r} of {page} not in the view"
                    checked += 1
    assert checked > 50


def test_views_are_not_searched(real_site):
    site, _ = real_site
    for index in (site / "search/search_index.json", site / "zh/search/search_index.json"):
        docs = json.loads(index.read_text())["docs"]
        assert docs and not [d["location"] for d in docs if "notebooks/" in d["location"]]
