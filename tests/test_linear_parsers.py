"""Every parser of page HTML stays linear, so that a page cannot make a build slow: the page-HTML check,
html_parse (its elements, find_all, rewrite), the CSP's script finder, the search index's readers,
the links of code block titles, and the lines of the page-HTML check's findings.

A page comes from a stranger's pull request. Each parser gets hostile HTML of size N and of 4N (the 4N
ones hold 16k nested comments, CDATA sections, processing instructions, unclosed start and end tags,
and a 1 MB attribute value), and must take less than RATIO times as long at 4N as at N, as in
tests/test_linear.py (whose CPU timer these tests share).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from test_linear import FLOOR, RATIO, _fastest

from mkdocs_examples import html_parse
from mkdocs_examples.render.page import link_titles
from mkdocs_examples.site import csp, page_html, search

N = 1 << 12  # pieces at N: 16k at 4N
# CPU seconds for one try of one parser on one input at both sizes, a bound for a parser that has turned quadratic (it
# would take minutes): a linear one takes up to 1.6 (find_all on unclosed tags), more on cores the suite shares
DEADLINE = 10.0

# name: hostile HTML of about n pieces, its text marked with a tag (no cache answers the second input)
INPUTS: dict[str, Callable[[int, str], str]] = {
    "nested comments": lambda n, t: f"<!--{t}" * n,
    "nested comments, closed": lambda n, t: f"<!--{t}" * n + "-->" * n,
    "comments holding markup": lambda n, t: f"<!--<p onclick=x>{t}" * n,
    "comments, each unended": lambda n, t: f"<!--{t}>" * n,
    "nested CDATA": lambda n, t: f"<![CDATA[{t}" * n,
    "CDATA, each unended": lambda n, t: f"<![CDATA[{t}>" * n,
    "nested processing instructions": lambda n, t: f"<?{t}" * n,
    "declarations": lambda n, t: f"<!{t}" * n,
    "unclosed tags": lambda n, t: f"<div><code>{t}" * n,
    "unended start tags": lambda n, t: f"<div {t}" * n,
    "unended start tags, a > at the end": lambda n, t: f"<a {t}" * n + ">",
    "unended end tags": lambda n, t: f"</{t}" * n,
    "unended scripts": lambda n, t: f"<script{t}" * n,
    "unended quoted values": lambda n, t: f"<span class=\"filename\" a='{t}" * n,
    "a long attribute value": lambda n, t: f'<a href="{t}' + "x" * (n * 64) + '">y</a>',
    "a long unended attribute value": lambda n, t: f'<img alt="{t}' + "x" * (n * 64),
}


def _lines(html: str) -> None:
    """Where every finding of the page-HTML check is in the page's Markdown (here, the HTML itself)."""
    lines = page_html._Lines(html)
    for finding in page_html.check(html)[0]:
        next((line for token in finding.tokens if (line := lines.next(token)) is not None), None)


PARSERS: dict[str, Callable[[str], Any]] = {
    "page_html.check": page_html.check,
    "page_html's finding lines": _lines,
    "html_parse.elements": html_parse.elements,
    "html_parse.rewrite": lambda html: html_parse.rewrite(html, lambda element: None),
    "html_parse.find_all code": lambda html: html_parse.find_all(html, "code"),
    "html_parse.find_all div": lambda html: html_parse.find_all(html, "div"),
    "html_parse.find_all a, start tags only": lambda html: html_parse.find_all(html, "a", start_only=True),
    "html_parse.find_all span holding": lambda html: html_parse.find_all(html, "span", holding="filename"),
    "csp.hashes": csp.hashes,
    "search's index text": search._for_index,
    "search's plain code": search._plain_code,
    "render's linked titles": lambda html: link_titles(html, "https://github.com/o/r", {"x"}),
}


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_the_parser_is_linear_on_hostile_html(name):
    parse = PARSERS[name]
    slow = []
    for kind, make in INPUTS.items():
        small, large = [make(N, tag) for tag in "01"], [make(4 * N, tag) for tag in "01"]
        parse(make(64, "warm"))
        at_n, at_4n = _fastest(parse, small, large, f"{name} on {kind}", DEADLINE)
        if at_4n >= RATIO * max(at_n, FLOOR):
            slow.append(f"{kind}: {at_n:.3f} CPU s at N = {N:,}, {at_4n:.3f} at 4N")
    assert not slow, f"{name} grows faster than its input: " + "; ".join(slow)


def test_the_inputs_are_hostile_at_their_size():
    """The 4N inputs hold what they say: 16k nested comments, a 1 MB attribute value."""
    assert INPUTS["nested comments"](4 * N, "x").count("<!--") == 16384
    assert len(INPUTS["a long attribute value"](4 * N, "x")) > 1 << 20


def test_the_page_html_check_still_reads_inside_comments():
    """A comment holds markup that a browser may read (it ends one at `--!>`): refused, nested or not."""
    for html in ("<!-- --!><script>x()</script> -->", "<![CDATA[<!-- --!><meta http-equiv=refresh>-->]]>"):
        found, safe = page_html.check(html)
        assert found and "<script" not in safe and "<meta" not in safe, html


@pytest.mark.parametrize("declaration", ["<![x]]>", "<![ x>", "<![if x]>", "<![endif]>"])
def test_a_declaration_html_parser_does_not_know_is_read_as_a_browser_reads_it_not_a_crash(declaration):
    found, _ = page_html.check(declaration + '<img src="x" onerror="alert(1)">')
    assert any("onerror" in f.message for f in found)  # after it, the markup is still read
    html_parse.elements(declaration)
