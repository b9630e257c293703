"""Notebook views (publish/notebook_views.py): each example's executed notebook, a page in each language.

On copies of the fixture site (tests/site) with mkdocs-jupyter, with and without
mkdocs-static-i18n, and on the real site.
"""

from __future__ import annotations

import gzip
import html
import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from mkdocs.exceptions import Abort
from test_site import build_site
from test_site_basics import SITE_URL

ROOT = Path(__file__).parent.parent
FIXTURE = Path(__file__).parent / "site"
JUPYTER = """  - search
  - mkdocs-jupyter:
      include: ["*.ipynb"]
      include_source: true
"""
REPOSITORY = "repo_url: https://github.com/owner/repo\nedit_uri: edit/trunk/docs/\n"
# an output of another device (a tab labelled with a recording's environment) or of another environment (a folded
# note), or a message quoted from PyTorch's source (`/// quoted-error`), which no example prints
OTHER_DEVICE = re.compile(
    r'<div class="tabbed-block">(?:(?!<div class="tabbed-block">).)*?data-mx-env="(?!build")'
    r'|<details class="note[^"]*">.*?</details>'
    r'|<div class="admonition quote">.*?</pre></div>',
    re.S,
)
EXAMPLES = sorted(p.relative_to(ROOT / "examples").with_suffix("") for p in (ROOT / "examples").rglob("[!_]*.py"))


def text_of(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def with_jupyter(root: Path, options: str = "") -> Path:
    """The fixture site at ``root`` with search, mkdocs-jupyter and a repository; ``options`` for `examples`."""
    shutil.copytree(FIXTURE, root)
    config = root / "mkdocs.yml"
    text = config.read_text().replace("plugins:\n", "plugins:\n" + JUPYTER, 1)
    text = text.replace("  name: material\n", "  name: material\n  features: [content.action.edit]\n", 1)
    config.write_text(text.replace("  - examples:\n", "  - examples:\n" + options, 1) + REPOSITORY)
    return root


NOTES = '# %% [markdown]\n# Six times *seven*\n\n# %% [markdown] lang="zh"\n# 六乘以*七*\n\n'


@pytest.fixture(scope="module")
def fixture_site(tmp_path_factory) -> Path:
    """The fixture site with notebook views, built once: its site folder."""
    root = with_jupyter(tmp_path_factory.mktemp("views") / "site")
    two = root / "examples" / "two.py"
    two.write_text(NOTES + two.read_text())
    build_site(root)
    return root / "site"


def links(page: str, label: str) -> list[str]:
    return re.findall(rf'<a href="([^"]+)">{re.escape(label)}</a>', page)


@pytest.mark.parametrize(("lang", "title", "description", "back", "view"), [
    ("", "Fixture: the notebook", "Fixture: the example as a notebook, with the outputs the page shows.",
     "Back to the page", "notebook view"),
    ("zh/", "测试站点：笔记本", "测试站点：示例的笔记本版本，带有页面上展示的输出。", "返回页面", "笔记本视图"),
])  # fmt: skip
def test_the_fixture_gets_a_view_of_each_example_in_each_language(fixture_site, lang, title, description, back, view):
    home = fixture_site / lang / "index.html"
    page = home.read_text()
    root = "../" if lang else ""  # the site's root, seen from the page
    assert links(page, view) == [f"{root}{lang}notebooks/one/", f"{root}{lang}notebooks/two/"]
    for stem in ("one", "two"):
        file = fixture_site / lang / "notebooks" / stem / "index.html"
        shown = file.read_text()
        assert f"<title>{title}" in shown and f'<html lang="{lang.strip("/") or "en"}"' in shown
        (href,) = links(shown, back)
        assert (file.parent / href / "index.html").resolve() == home.resolve()  # back to the page that embeds it
        assert "<style" not in shown.split('class="md-content"')[1]  # JupyterLab's inline CSS: gone
        css = re.search(r'<link rel="stylesheet" href="([^"]*assets/notebook-views\.css)">', shown)
        assert css and (file.parent / css[1]).resolve().is_file()
        edit = re.search(r'<a href="([^"]+)" title="[^"]+" class="md-content__button md-icon" rel="edit">', shown)
        assert edit and edit[1] == f"https://github.com/owner/repo/edit/trunk/examples/{stem}.py"
        assert f'<meta name="description" content="{description}">' in shown
        assert (file.parent / f"{stem}.ipynb").is_file()  # mkdocs-jupyter's include_source: the download
    for href in links(page, view):  # the take-away line of the page, in its language, links each view
        assert (home.parent / href / "index.html").is_file(), href
    assert "answer: 42" in text_of((fixture_site / lang / "notebooks" / "two" / "index.html").read_text())


@pytest.mark.parametrize(("lang", "note", "shown", "other"), [
    ("", "Six times *seven*", "Six times <em>seven</em>", "六乘以"),
    ("zh/", "六乘以*七*", "六乘以<em>七</em>", "Six times"),
])  # fmt: skip
def test_each_languages_view_and_downloads_carry_the_examples_note_in_that_language(
    fixture_site, lang, note, shown, other
):
    view = fixture_site / lang / "notebooks" / "two" / "index.html"
    assert shown in view.read_text() and other not in view.read_text()
    page = (fixture_site / lang / "index.html").read_text()
    (href,) = re.findall(r'<a href="([^"]+/two\.ipynb)" download>', page)  # the take-away line's notebook
    download = (fixture_site / lang / href).resolve()
    assert download.parent == (fixture_site / lang / "downloads").resolve()
    for notebook in (download, view.parent / "two.ipynb"):  # and the view's own download button
        cells = nbformat.reads(notebook.read_text(), as_version=4).cells
        assert [c.source for c in cells if c.cell_type == "markdown"] == [note]
    script = download.with_suffix(".py").read_text()
    assert note in script and other not in script


def test_views_are_left_out_of_the_fixtures_search_index(fixture_site):
    docs = json.loads((fixture_site / "search" / "search_index.json").read_text())["docs"]
    assert {d["location"].split("#")[0] for d in docs} == {"", "zh/"}


@pytest.mark.parametrize(("directories", "view", "urls", "back"), [
    (True, "notebooks/one/index.html", ["../notebooks/one/", "../notebooks/two/"], "../../tips/"),
    (False, "notebooks/one.html", ["../notebooks/one.html", "../notebooks/two.html"], "../tips/index.html"),
])  # fmt: skip
def test_views_of_a_site_without_static_i18n(tmp_path, directories, view, urls, back):
    root = with_jupyter(tmp_path / "site")
    config = root / "mkdocs.yml"
    text = re.sub(r"  - i18n:\n(?:      .*\n)+", "", config.read_text())
    config.write_text(text + f"use_directory_urls: {str(directories).lower()}\n")
    shutil.rmtree(root / "docs" / "zh")
    (root / "docs" / "en").rename(root / "docs" / "tips")  # a folder that is no language
    build_site(root)
    site = root / "site"
    assert links((site / "tips" / "index.html").read_text(), "notebook view") == urls
    shown = (site / view).read_text()
    assert "<title>Fixture: the notebook" in shown and links(shown, "Back to the page") == [back]
    css = re.search(r'<link rel="stylesheet" href="([^"]*assets/notebook-views\.css)">', shown)
    assert css and (site / view).parent.joinpath(css[1]).resolve().is_file()
    assert "/edit/trunk/examples/one.py" in shown
    assert not (site / "zh").exists()


def test_a_mkdocs_jupyter_that_would_not_render_the_views_stops_the_build_saying_what_to_do(tmp_path, caplog):
    root = with_jupyter(tmp_path / "site")
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace('include: ["*.ipynb"]', 'include: ["*.py"]'))
    with pytest.raises(Abort):
        build_site(root)
    assert "mkdocs-jupyter does not render the notebook views (notebooks/one.ipynb)" in caplog.text
    assert "notebook_views: false" in caplog.text


def test_no_views_with_the_option_off_or_without_mkdocs_jupyter(tmp_path, monkeypatch):
    off = with_jupyter(tmp_path / "off", options="      notebook_views: false\n")
    plain = shutil.copytree(FIXTURE, tmp_path / "plain")
    # the folder the build is started from: mkdocs-jupyter's cache there is another project's, left alone
    elsewhere = tmp_path / "elsewhere" / ".cache" / "mkdocs-jupyter"
    elsewhere.mkdir(parents=True)
    (elsewhere / "another-project.json").write_text("{}")
    monkeypatch.chdir(elsewhere.parent.parent)
    for root in (off, plain):
        build_site(root)
        assert (elsewhere / "another-project.json").exists(), f"{root.name}: the current folder's cache emptied"
        assert not (root / "site" / "notebooks").exists() and not (root / "site" / "zh" / "notebooks").exists()
        page = (root / "site" / "index.html").read_text()
        assert "downloads/one.ipynb" in page  # the take-away line, without a link to a view
        assert not links(page, "notebook view") and 'href="notebooks/' not in page


@pytest.mark.parametrize("lang", ["", "zh/"])
def test_every_example_has_a_light_view_in_each_language(real_site, lang):
    site, _ = real_site
    sizes = []
    for stem in EXAMPLES:
        view = site / lang / "notebooks" / stem / "index.html"
        assert view.exists(), f"no view of {stem} in /{lang}"
        page = view.read_text()
        text = re.sub(r"data:image/[\w+]+;base64,[\w+/=]+", "", page)  # its figures, which the page has too
        sizes.append(len(gzip.compress(text.encode())))  # as GitHub Pages serves it
        assert f'<html lang="{lang.strip("/") or "en"}"' in page  # the language's chrome
        assert ("笔记本" if lang else "the notebook") in page
        assert "<style" not in page.split('class="md-content"')[1]  # JupyterLab's 590 KB of inline CSS: gone
        assert "assets/notebook-views.css" in page
        button = re.search(r'<a href="([^"]+\.ipynb)" title="[^"]+" class="md-content__button md-icon" download>', page)
        assert button, f"{view}: no download button"
        source = (view.parent / button[1]).resolve()
        nbformat.validate(nbformat.reads(source.read_text(), as_version=4))
        edit = re.search(r'<a href="([^"]+)" title="[^"]+" class="md-content__button md-icon" rel="edit">', page)
        repository = "https://github.com/pytorch-tips/pytorch-tips"
        edited = f"{stem.as_posix()}.zh.yml" if lang else f"{stem.as_posix()}.py"  # the comments' translation
        assert edit and edit[1] == f"{repository}/edit/main/examples/{edited}"
        content = page.split('class="md-content"')[1]
        blocks = re.findall(r'<pre id="[^"]+"><code tabindex="0">', content)  # code Material gives a copy button
        assert content.count("<pre") == len(blocks) > 0
    # the longest example's text and code are under 33 KB gzipped; mkdocs-jupyter's inline CSS alone is 87 KB
    assert max(sizes) < 60_000, max(sizes)


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
            # the view holds this build's outputs, not those of another device's tab or another environment's note
            own = re.sub(OTHER_DEVICE, "", text)
            outputs = re.findall(r'<div class="language-text highlight">.*?<code[^>]*>(.*?)</code>', own, re.S)
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


@pytest.mark.parametrize(("lang", "other"), [("", "zh/"), ("zh/", "")])
def test_a_view_carries_its_language_its_switcher_and_plain_title(real_site, lang, other):
    """The language switcher and `rel=alternate` of every view go to the same view in the other
    language (they went to the page rendered before it); its title shows no Markdown."""
    site, _ = real_site
    for stem in EXAMPLES:
        view = site / lang / "notebooks" / stem / "index.html"
        page = view.read_text()
        for tag in ("link", "a"):
            pattern = rf'<{tag} (?:rel="alternate" )?href="([^"]*)" hreflang="{(other or "en/").strip("/")}"'
            found = re.findall(pattern, page)
            assert found, f"{view}: no <{tag}> to the other language"
            if tag == "link":  # an absolute address, as search engines read them (examples-pages)
                assert found[0].startswith(SITE_URL), f"{view}: {found}"
                found[0] = str(site / found[0].removeprefix(SITE_URL))
            target = (view.parent / found[0] / "index.html").resolve()
            assert target == (site / other / "notebooks" / stem / "index.html").resolve(), f"{view}: {found}"
        title = re.search(r"<title>(.*?)</title>", page, re.S)
        heading = re.search(r"<h1[^>]*>(.*?)</h1>", page, re.S)
        assert title and heading and "`" not in title[1] + heading[1], f"{view}: {title}, {heading}"


def test_a_chinese_view_notes_a_gpu_recording_in_chinese(real_site):
    site, _ = real_site
    en = text_of((site / "notebooks/devices/gpu_memory/index.html").read_text())
    zh = text_of((site / "zh/notebooks/devices/gpu_memory/index.html").read_text())
    assert "This cell's output was printed on " in en and "这个单元格的输出录制于 " not in en
    assert "这个单元格的输出录制于 " in zh and "This cell's output was" not in zh


def test_a_second_build_renders_no_view_again_in_either_language(tmp_path, monkeypatch):
    """mkdocs-jupyter deletes, at the end of each build, the renderings that build did not use: with
    static-i18n each language deleted the other's, and every build rendered them all again."""
    from mkdocs_jupyter import convert

    root = with_jupyter(tmp_path / "site")
    with (root / "examples" / "one.py").open("a") as example:  # its view notes this cell in its language
        example.write('\n# %% gpu tags=["requires-cuda"]\nprint(torch.ones(1, device="cuda"))\n')
    rendered: list[str] = []
    original = convert.nb2html
    monkeypatch.setattr(convert, "nb2html", lambda path, **options: rendered.append(path) or original(path, **options))
    build_site(root)
    first = sorted(rendered)
    assert any("/zh/" in path for path in first) and any("/zh/" not in path for path in first)  # both languages
    cached = sorted(p.name for p in (root / ".cache" / "mkdocs-jupyter").glob("*.json"))
    assert len(cached) == len(first)
    rendered.clear()
    build_site(root)
    assert rendered == []
    assert sorted(p.name for p in (root / ".cache" / "mkdocs-jupyter").glob("*.json")) == cached
