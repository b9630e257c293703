"""Nothing from a pull request becomes markup: every value an example, a recording or terms.yml brings is text.

Each path that once let a stranger's pull request put an event handler on the published site
(each fired `alert()` in Chromium) is tried here with the same payloads, in both languages:
a note of an example (notebook views), provenance values (an example can patch
`platform.python_version`; a recording names any GPU), the GPU note of a notebook, a recorded
output longer than the site shows, search terms, and a link among the pages. Figures are
checked as PNG whatever their source in test_schema.py. At the end, a fixture site built from
all of them is opened in Chromium, and no dialog may open.
"""

from __future__ import annotations

import html
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest
from helpers import search_queries
from mkdocs.exceptions import Abort, PluginError
from nbconvert.filters.markdown_mistune import markdown2html_mistune

from mkdocs_examples.publish.notebooks import notebook
from mkdocs_examples.recordings.store import Published, Recording
from mkdocs_examples.render.page import render_example
from mkdocs_examples.render.provenance import Sources
from mkdocs_examples.results import CellResult, Result
from mkdocs_examples.source.cells import Example

ROOT = Path(__file__).parent.parent
PAYLOADS = [
    '<img src="x" onerror="alert(document.domain)">',
    "![g](x){onerror=alert(1)}",
    "[click](javascript:alert(1))",
    '"><svg onload=alert(1)>',
]
MATHS = "$x^2$ \\(y\\)"  # no markup, but the site's KaTeX would draw it as maths: not what the machine said
EXTENSIONS = [
    "admonition", "attr_list", "md_in_html", "pymdownx.superfences", "pymdownx.highlight",
    "pymdownx.tabbed", "pymdownx.details", "pymdownx.arithmatex",
]  # fmt: skip
CONFIGS = {"pymdownx.arithmatex": {"generic": True}}  # as mkdocs.yml: formulas for the site's KaTeX
SOURCE = "# %% [markdown]\n# {note}\n\n# %% shown\nprint(1)\n\n# %% gpu tags=[\"requires-cuda\"]\nprint(2)\n"


class _Attributes(HTMLParser):
    """Every tag and attribute of a piece of HTML."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [(tag, name, value or "") for name, value in attrs] or [(tag, "", "")]


def unsafe(page: str) -> list[tuple[str, str, str]]:
    """What in ``page`` would run script the page did not bring itself: an event handler, a javascript: URL."""
    parser = _Attributes()
    parser.feed(page)
    return [
        (tag, name, value) for tag, name, value in parser.found
        if name.startswith("on") or value.strip().lower().startswith("javascript:")
    ]  # fmt: skip


def example(note: str = "a note") -> Example:
    return Example.from_source("d/x.py", Path("/x/d/x.py"), SOURCE.format(note=note))


def result(env: dict[str, str]) -> Result:
    return Result(cells=(CellResult(0, "1\n"), CellResult(1, skipped="requires-cuda")), env=env)


def recording(of: Example, gpu: str, output: str = "2\n") -> Recording:
    env = {"device": "cuda", "gpu": gpu, "torch": "2.13.0+cu130", "python": "3.11.7"}
    return Recording(of.path, of.keys, "2026-11-22T10:00:00Z", env, 0.1,
                     (CellResult(0, "1\n"), CellResult(1, output)))  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("payload", [*PAYLOADS, MATHS])
def test_provenance_values_are_text_however_markdown_reads_them(payload, lang):
    shown = example()
    built = result({"torch": payload, "device": "cpu", "python": payload})
    published = (Published("cuda", recording(shown, gpu=payload), {"torch": "2.13.0+cpu", "python": "3.11.7"}),)
    sources = Sources()  # the labels beside outputs, and the page's block of environments in full
    text = render_example(shown, built, None, lang=lang, limit=100, published=published, sources=sources)
    page = markdown.markdown(text + sources.block(lang), extensions=EXTENSIONS, extension_configs=CONFIGS)
    assert not unsafe(page), unsafe(page)
    shown_text = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert shown_text.count(payload) >= 3  # as text: the build's torch and Python, the recording's GPU
    assert "arithmatex" not in page  # no formula made of a machine's name


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("payload", [*PAYLOADS, MATHS])
def test_a_version_notes_title_and_body_are_text_however_markdown_reads_them(payload, lang):
    shown = example()
    built = Result(cells=(CellResult(0, "1\n"), CellResult(1, skipped="requires-cuda")),
                   env={"torch": "2.13.0+cpu", "device": "cpu", "python": "3.11.7"})  # fmt: skip
    other = {"device": "cpu", "torch": "2.14.1" + payload, "python": "3.11.7" + payload}  # another release: a note
    made = Recording(shown.path, shown.keys, "2026-11-22T10:00:00Z", other, 0.1,
                     (CellResult(0, payload + "\n"), CellResult(1, skipped="requires-cuda")))  # fmt: skip
    published = (Published("cpu", made, {"torch": "2.13.0+cpu", "python": "3.11.7"}),)
    text = render_example(shown, built, None, lang=lang, limit=100, published=published)
    assert "??? note" in text
    page = markdown.markdown(text, extensions=EXTENSIONS, extension_configs=CONFIGS)
    assert "<details" in page and not unsafe(page), unsafe(page)
    assert "arithmatex" not in page  # no formula made of another release's output or name


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_note_of_an_example_and_the_gpu_note_of_a_notebook_are_text_in_a_notebook_view(payload):
    shown = example(note=payload)
    book = notebook(shown, result({"device": "cpu", "python": "3.11.7"}), recording(shown, gpu=payload))
    notes = [c["source"] for c in book["cells"] if c["cell_type"] == "markdown"]
    assert len(notes) == 2  # the example's note, and the note under the output recorded on the GPU
    for note in notes:
        rendered = markdown2html_mistune(note)  # as mkdocs-jupyter renders a view's Markdown cells
        assert not unsafe(rendered), rendered
    assert "alert" in markdown2html_mistune(notes[0])  # the words are still there, as text


def test_a_recorded_output_is_cut_as_the_build_cuts_its_own():
    shown = example()
    page = render_example(
        shown, result({"device": "cpu"}), None, lang="en", limit=100,
        published=(Published("cuda", recording(shown, gpu="GPU", output="y" * 5000), {}),),
    )  # fmt: skip
    assert "y" * 100 in page and "y" * 101 not in page
    assert "4,900 more characters cut" in page


@pytest.mark.parametrize("term", ['<img src=x onerror="alert(1)">', "a&b", "x\ny", 3])
def test_a_search_term_that_is_no_word_stops_the_build_naming_terms_yml(term):
    from mkdocs_examples.site import search as hook

    assert hook._tag("交叉熵", "losses/x.md") == "交叉熵" and hook._tag("OOM", "x.md") == "OOM"
    with pytest.raises(PluginError, match=r"terms\.yml: the term .* of losses/x\.md is not a word"):
        hook._tag(term, "losses/x.md")


def test_a_link_among_the_pages_stops_the_build_before_anything_is_published(tmp_path, caplog):
    from test_site import build_site

    site = shutil.copytree(Path(__file__).parent / "site", tmp_path / "site")
    secret = tmp_path / "secret.txt"
    secret.write_text("TOKEN=abc\n")
    (site / "docs" / "en" / "notes.txt").symlink_to(secret)
    with pytest.raises(Abort):
        build_site(site)
    assert "symbolic link(s) among the pages" in caplog.text and "docs/en/notes.txt -> " in caplog.text
    assert not (site / "site").exists()


def test_a_bidirectional_control_in_a_page_stops_the_build_naming_page_and_line(tmp_path, caplog):
    from test_site import build_site

    site = shutil.copytree(Path(__file__).parent / "site", tmp_path / "site")
    page = site / "docs" / "zh" / "index.md"  # a reviewer reads `x = 1  # x is 1`; Markdown and readers get the code
    page.write_text(page.read_text() + "\n```python\nx = 1  \u2067# x is 1\u2069 \u2066x = 2\u2069\n```\n")
    with pytest.raises(Abort):
        build_site(site)
    said = "1 page(s) hold a bidirectional control, which shows text in another order than it is written: "
    assert said + "docs/zh/index.md:12: U+2067 (RIGHT-TO-LEFT ISOLATE). Remove it" in caplog.text
    assert not (site / "site").exists()


# --- the published site in Chromium --------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> Path:
    """The fixture site with notebook views, search, an example whose note is a payload and whose
    provenance it patches, and a recording of it whose GPU is a payload."""
    from test_site import build_site

    root = shutil.copytree(Path(__file__).parent / "site", tmp_path_factory.mktemp("hostile") / "site")
    config = root / "mkdocs.yml"
    text = config.read_text().replace("plugins:\n", "plugins:\n  - search\n  - mkdocs-jupyter:\n"
                                      '      include: ["*.ipynb"]\n', 1)  # fmt: skip
    text = text.replace("  - pymdownx.superfences\n", "  - pymdownx.superfences\n  - attr_list\n  - md_in_html\n"
                        "  - pymdownx.tabbed:\n      alternate_style: true\n  - pymdownx.details\n")  # fmt: skip
    config.write_text(text)
    payload = PAYLOADS[0]
    source = (
        f"# %% [markdown]\n# {payload} {PAYLOADS[2]}\n\n# %% patched\nimport platform\n"
        f"platform.python_version = lambda: {PAYLOADS[1]!r}\nprint({payload!r})\n\n"
        '# %% gpu tags=["requires-cuda"]\nprint(2)\n'
    )
    (root / "examples" / "x.py").write_text(source)
    for lang in ("en", "zh"):
        (root / "docs" / lang / "x.md").write_text("# X\n\n/// example | x.py\n///\n")
    shown = Example.from_source("x.py", root / "examples" / "x.py", source)
    made = Recording("x.py", shown.keys, "2026-11-22T10:00:00Z",
                     {"device": "cuda", "gpu": PAYLOADS[1] + payload, "torch": "2.13.0", "python": "3.11.7"}, 0.1,
                     (CellResult(0, "x\n"), CellResult(1, payload + "\n")))  # fmt: skip
    from mkdocs_examples.recordings.store import dumps, manifest_of, write_manifest

    (root / "recordings" / "cuda").mkdir(parents=True)
    (root / "recordings" / "cuda" / "x.json").write_text(dumps(made))
    # another torch release on the CPU, whose output the torch picker fetches and shows: a payload
    other = Recording("x.py", shown.keys, "2026-11-23T10:00:00Z",
                      {"device": "cpu", "torch": "2.14.1+cpu", "python": "3.11.7"}, 0.1,
                      (CellResult(0, PAYLOADS[3] + "\n"), CellResult(1, skipped="requires-cuda")))  # fmt: skip
    folder = root / "recordings" / "cpu-torch2.14.1-py3.11"
    folder.mkdir()
    (folder / "x.json").write_text(dumps(other))
    write_manifest(folder, manifest_of([other]))
    build_site(root)
    return root / "site"


def test_no_dialog_opens_on_any_page_built_from_hostile_examples_and_recordings(hostile_site, page):
    pages = sorted(p.relative_to(hostile_site).as_posix() for p in hostile_site.rglob("index.html"))
    assert {"x/index.html", "zh/x/index.html", "notebooks/x/index.html", "zh/notebooks/x/index.html"} <= set(pages)
    for name in ("x/index.html", "zh/x/index.html", "notebooks/x/index.html"):  # the payloads are there, as text
        article = re.search(r"<article.*</article>", (hostile_site / name).read_text(), re.S)
        assert article and not unsafe(article[0]), unsafe(article[0] if article else "")
        assert "onerror" in html.unescape(re.sub(r"<[^>]+>", "", article[0]))
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    for path in pages:
        page.goto((hostile_site / path).as_uri())
        page.wait_for_load_state("load")
    assert not dialogs


def test_the_output_of_a_picked_release_is_text_however_hostile(hostile_site, page):
    from playwright.sync_api import expect

    dialogs: list[str] = []
    with search_queries.served(hostile_site) as url:
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.goto(f"{url}/x/")
        page.locator("select.mx-picker__select").select_option("cpu-torch2.14.1-py3.11")
        # the hostile recording is test data that no trusted key signs: labelled so (with its device and Python: the
        # build ran no torch, so the site names none of its own)
        expect(page.locator('.mx-provenance[data-mx-cell="0"]')).to_have_text(
            "torch 2.14.1 · CPU · Python 3.11 · unverified")  # fmt: skip
        article = page.locator("article")
        assert PAYLOADS[3] in article.inner_text()  # shown, as text
        assert not unsafe(article.evaluate("e => e.innerHTML")), unsafe(article.evaluate("e => e.innerHTML"))
    assert not dialogs
