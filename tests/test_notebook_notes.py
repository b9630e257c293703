"""An example's notes (``# %% [markdown]``) are text in its notebook views, however they are written.

Two lines hold: the engine writes each note into the notebook disarmed (publish/notebooks.py: its HTML escaped
outside code spans, found as CommonMark finds them, an escaped backtick being text), and examples-page-html
checks the HTML of every Markdown cell of a view as it checks a page's (page_html.check_notes), naming the
example. Each payload of the hostile reviews is tried against both, and through a build of the fixture site.
"""

from __future__ import annotations

import pytest
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from test_markup import PAYLOADS as MARKUP_PAYLOADS
from test_notebook_views import with_jupyter
from test_page_html import PAYLOADS as PAGE_PAYLOADS
from test_site import build_site

from mkdocs_examples import html_parse
from mkdocs_examples.publish.notebooks import code_spans, disarmed
from mkdocs_examples.site import page_html

REFRESH = '<meta http-equiv="refresh" content="0;url=https://example.org/">'
ESCAPED = [
    f"\\`{REFRESH}`",  # the fourth review's: a backslash makes the backtick text, so no code span holds the markup
    f"\\\\\\`{REFRESH}`",  # three backslashes: an escaped backslash, then an escaped backtick
    f"`a` \\`{REFRESH}` `b`",
    f"``{REFRESH}`",  # a run of two never closed: text
]
NOTES = ESCAPED + MARKUP_PAYLOADS + list(PAGE_PAYLOADS)


def unsafe(html: str) -> list[str]:
    return [finding.message for finding in page_html.check(html)[0]]


@pytest.mark.parametrize("note", NOTES)
def test_a_disarmed_note_is_text_as_mkdocs_jupyter_renders_it(note):
    rendered = markdown2html_mistune(disarmed(note))
    assert not unsafe(rendered), rendered


def test_code_spans_are_found_as_commonmark_finds_them():
    assert code_spans("a `b` c") == [(2, 5)]
    assert code_spans("\\`x` `y`") == [(3, 6)]  # the escaped backtick is text; the next one opens a span
    assert code_spans("\\\\`x`") == [(2, 5)]  # an escaped backslash: the backtick opens a span
    assert code_spans("``a ` b``") == [(0, 9)] and code_spans("``a`") == []


def test_a_views_markdown_cell_that_holds_markup_is_refused_and_the_rest_kept():
    note = f'<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown jp-MarkdownOutput"><p>x</p>{REFRESH}</div>'
    script = "<script>document.addEventListener('clipboard-copy', f)</script>"  # mkdocs-jupyter's own
    found, safe = page_html.check_notes(f"{script}<div class='jp-Cell'>{note}</div>")
    assert [f.message.split(":")[0] for f in found] == ["<meta> cannot be in a page"]
    assert REFRESH not in safe and "<p>x</p>" in safe and script in safe
    clean = f"{script}<div class='jp-RenderedMarkdown'><p>x</p></div>"
    assert page_html.check_notes(clean) == ([], clean)


def test_a_hostile_note_builds_to_text_in_every_view(tmp_path, caplog):
    root = with_jupyter(tmp_path / "site")
    two = root / "examples" / "two.py"
    notes = "".join(f"# %% [markdown]\n# {note}\n\n" for note in ESCAPED + MARKUP_PAYLOADS[:2])
    two.write_text(notes + two.read_text())
    build_site(root)
    views = sorted((root / "site").rglob("notebooks/two/index.html"))
    assert len(views) == 2  # English and Chinese
    for view in views:
        text = view.read_text()
        tags = [(t.name, dict(t.attrs)) for t in html_parse.tags(text)]
        assert "http-equiv=&quot;refresh&quot;" in text or 'http-equiv="refresh"' in text  # shown, as text
        assert not [tag for tag, attrs in tags if tag == "meta" and attrs.get("http-equiv") == "refresh"], view
        assert not [tag for tag, attrs in tags if "onerror" in attrs], view
    assert "page_html" not in caplog.text  # disarmed: nothing left for the second line to refuse
