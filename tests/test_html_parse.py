"""src/mkdocs_examples/html_parse.py: HTML read as elements, rewritten where asked and byte for byte elsewhere."""

from __future__ import annotations

from mkdocs_examples import html_parse

PAGE = (
    '<!doctype html>\n<html><head><meta charset="utf-8"><style>p > a { x: "</p>" }</style></head>\n'
    "<body class='a  b'><p>One &amp; <code>two</code><br>\n<img src=x /></p><ul><li>1<li>2</ul>"
    "<script>if (a < b && c) {}</script></p></body></html>"
)


def test_each_element_knows_its_tags_content_depth_and_parent():
    found = html_parse.elements(PAGE)
    assert [e.tag for e in found] == [
        "html", "head", "meta", "style", "body", "p", "code", "br", "img", "ul", "li", "li", "script"
    ]  # fmt: skip
    by = {e.tag: e for e in found}
    assert by["style"].inner == 'p > a { x: "</p>" }'  # raw text, as a browser reads it
    assert by["p"].outer == "<p>One &amp; <code>two</code><br>\n<img src=x /></p>" and by["p"].depth == 2
    assert by["code"].parent is by["p"] and [c.tag for c in by["p"].children] == ["code", "br", "img"]
    assert by["body"].classes == ("a", "b") and by["body"].has_class("b", "a")
    first, second = (e for e in found if e.tag == "li")  # no end tag: closed by their list's (none implied)
    assert first.outer == "<li>1<li>2" and second.outer == "<li>2" and second.parent is first
    assert by["script"].inner == "if (a < b && c) {}" and by["html"].end == len(PAGE)


def test_a_rewrite_changes_what_it_picks_and_nothing_else():
    def edit(element: html_parse.Element) -> str | None:
        if element.tag == "code":
            return f"<kbd>{element.inner}</kbd>"
        if element.tag == "ul":
            return ""  # its items are not offered
        return None

    assert html_parse.rewrite(PAGE, edit) == PAGE.replace("<code>two</code>", "<kbd>two</kbd>").replace(
        "<ul><li>1<li>2</ul>", ""
    )
    assert html_parse.rewrite(PAGE, lambda element: None) == PAGE


def test_an_element_replaced_by_nothing_takes_its_white_space_along_when_tidy():
    source = "<div><style>x</style>\n  <pre>a</pre></div>"
    drop = lambda element: "" if element.tag == "style" else None  # noqa: E731
    assert html_parse.rewrite(source, drop, tidy=True) == "<div><pre>a</pre></div>"
    assert html_parse.rewrite(source, drop) == "<div>\n  <pre>a</pre></div>"


def test_text_resolves_references_and_leaves_out_what_is_excluded():
    source = '<p>a &lt; b <span class="filename">x.py</span><em>c</em></p>'
    (paragraph, *_) = html_parse.elements(source)
    assert paragraph.text() == "a < b x.pyc"
    assert paragraph.text(lambda tag, attrs: attrs.get("class") == "filename") == "a < b c"


def test_an_attribute_is_set_in_the_start_tag_as_written():
    (link,) = html_parse.elements('<link rel="alternate" href=\'../\'  hreflang=en>')
    assert html_parse.with_attribute(link, "href", "https://x.org/?a&b") == (
        '<link rel="alternate" href="https://x.org/?a&amp;b"  hreflang=en>'
    )
    assert html_parse.with_attribute(link, "title", "t") == '<link rel="alternate" href=\'../\'  hreflang=en title="t">'
    (flag,) = html_parse.elements("<p hidden>")
    assert html_parse.with_attribute(flag, "hidden", "") == '<p hidden="">'


def test_find_all_reads_only_the_elements_of_one_tag_as_elements_reads_them():
    page = PAGE.replace("<ul>", '<SCRIPT src="b.js"></SCRIPT><h1 id=t>T<img src=x><a>¶</a></h1><ul>')
    everything = html_parse.elements(page)
    for tag in ("script", "meta", "h1", "p"):  # each with its end tag, or void
        whole = [(e.start, e.content, e.content_end, e.end) for e in everything if e.tag == tag and (
            not any(o.tag == tag and o.start < e.start < o.end for o in everything))]  # fmt: skip
        assert [(e.start, e.content, e.content_end, e.end) for e in html_parse.find_all(page, tag)] == whole, tag
    (title,) = html_parse.find_all(page, "h1")  # a heading holds no heading: what it holds is not read
    assert title.outer == "<h1 id=t>T<img src=x><a>¶</a></h1>" and title.children == []
    (paragraph,) = html_parse.find_all(page, "p")
    assert [e.tag for e in paragraph.descendants()] == ["code", "br", "img"]
    assert html_parse.find_all("<linkx><link rel=x>", "link")[0].attrs == {"rel": "x"}  # not a tag that starts alike


def test_find_all_may_read_start_tags_only():
    page = '<article class="a"><h1 id="t">T</h1><p>x</p></article>'
    (article,) = html_parse.find_all(page, "article", start_only=True)
    assert (article.start_tag, article.inner, article.children) == ('<article class="a">', "", [])
    assert article.classes == ("a",) and article.start == 0


def test_find_all_may_read_only_the_elements_whose_start_tag_holds_a_text():
    page = '<span class="n">x</span><span title="a>b" class="filename">a.py</span><span class=\'filename\'>b</span>'
    found = html_parse.find_all(page, "span", holding="filename")
    assert [(e.attrs["class"], e.inner) for e in found] == [("filename", "a.py"), ("filename", "b")]
