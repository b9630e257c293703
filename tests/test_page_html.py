"""examples-page-html (src/mkdocs_examples/site/page_html.py): a page's own HTML cannot script the site, on
copies of the fixture site (tests/site).

Each payload is one a stranger's page could bring through Markdown (raw HTML, a Markdown link, an
attribute list): a strict build stops, naming the page's file and line and what to write instead;
any other build publishes the page without it. What the site's own extensions write passes
unchanged, byte for byte.
"""

from __future__ import annotations

import base64
from types import SimpleNamespace

import markdown
import pytest
from helpers import build_site
from mkdocs.exceptions import Abort
from test_site_plugins import fixture

from mkdocs_examples.site import page_html

EXTENSIONS = "  - attr_list\n  - md_in_html\n  - pymdownx.details\n  - pymdownx.tabbed:\n      alternate_style: true\n"
# payload (one line of Markdown): what the warning says of it, and what of it must not reach the built page
PAYLOADS = {
    "<script>alert(document.domain)</script>": (
        "<script> cannot be in a page: show code in a fenced code block", "<script>alert"),
    '<img src="x.png" onerror="alert(1)">': ("the attribute `onerror` of <img> runs script", "onerror"),
    "[click](javascript:alert(1))": (
        '`href="javascript:…"` on <a> runs script: link to a page or an address', "javascript"),
    '<a href="java&#x09;script:alert(1)">click</a>': ('`href="javascript:…"` on <a> runs script', "script:"),
    '<iframe src="https://example.org/"></iframe>': ("<iframe> cannot be in a page: link to it instead", "<iframe"),
    '<meta http-equiv="refresh" content="0; url=https://example.org/">': ("<meta> cannot be in a page", "refresh"),
    '<form action="https://example.org/"><input name="q"></form>': (
        "<form> cannot be in a page: a page holds no form", "<form"),
    "## Click me {: onclick=alert(1) }": ("the attribute `onclick` of <h2> runs script", "onclick"),
    '<object data="x.swf"></object>': ("<object> cannot be in a page", "x.swf"),
    '<base href="https://example.org/">': ("<base> cannot be in a page: write each link in full", "<base"),
    '<a href="data:text/html,<script>alert(1)</script>">x</a>': (
        '`href="data:…"` on <a>: a page uses data: URLs', "data:"),
    # where html.parser and a browser read differently: inside <svg>, <style> holds markup; a comment ends at --!>
    '<svg><style><img src="x" onerror="alert(1)"></style></svg>': (
        "the attribute `onerror` of <img> runs script", "onerror"),
    '<!-- a --!><img src="x" onerror="alert(1)"> -->': ("the attribute `onerror` of <img> runs script", "onerror"),
    '<svg><set attributeName="onmouseover" to="alert(1)"/></svg>': ("<set> animates `onmouseover`", "onmouseover"),
}  # fmt: skip


def site_with(tmp_path, line: str):
    """The fixture site with the plugin, and ``line`` on line 11 of its English page (the default language: a
    strict build that fails inside static-i18n's build of another language leaves MkDocs' clean_directory
    patched out for the rest of the process, static-i18n 1.3.1)."""
    root = fixture(tmp_path, "examples-page-html")
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace("markdown_extensions:\n", f"markdown_extensions:\n{EXTENSIONS}", 1))
    page = root / "docs" / "en" / "index.md"
    page.write_text(page.read_text() + f"\n{line}\n\nThe rest of the page.\n")
    return root


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_page_that_could_script_the_site_stops_a_strict_build_naming_its_file_and_line(tmp_path, caplog, payload):
    root = site_with(tmp_path, payload)
    with pytest.raises(Abort):
        build_site(root, strict=True)
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warnings and all(w.startswith("page_html: docs/en/index.md:11: ") for w in warnings), warnings
    assert PAYLOADS[payload][0] in warnings[0]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_build_that_goes_on_publishes_the_page_without_it(tmp_path, payload):
    root = site_with(tmp_path, payload)
    build_site(root, strict=False)
    built = (root / "site" / "index.html").read_text()
    article = built[built.index("<article") : built.index("</article>")]
    assert PAYLOADS[payload][1] not in article.lower()
    assert "The rest of the page." in article


PNG = "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()
HARMLESS = f"""\
# Title {{ #top .big }}

e<sup>x</sup>, <kbd>Ctrl</kbd>, [a link](https://pytorch.org/ "PyTorch"), `<script>` in code. <!-- a note -->

![a figure]({PNG})

<div markdown>**Markdown** in HTML</div>

```html
<script>alert(1)</script><img src=x onerror=alert(1)>
```

??? note "Folded"
    Text.

=== "CPU"
    One.

=== "CUDA"
    Two.
"""


def test_what_the_sites_extensions_write_passes_unchanged():
    extensions = ["admonition", "attr_list", "md_in_html", "pymdownx.details", "pymdownx.superfences",
                  "pymdownx.highlight", "pymdownx.tabbed", "pymdownx.arithmatex", "toc"]  # fmt: skip
    content = markdown.markdown(HARMLESS, extensions=extensions, extension_configs={"pymdownx.tabbed": {
        "alternate_style": True}, "pymdownx.arithmatex": {"generic": True}, "toc": {"permalink": True}})  # fmt: skip
    assert "<input" in content and "<details" in content and 'src="data:image/png' in content  # all of it made
    assert page_html.check(content) == ([], content)  # nothing found, and the very same text


def test_serve_checks_a_pages_content_once_while_it_is_the_same_and_any_other_content_in_full(monkeypatch, caplog):
    checked: list[str] = []
    check = page_html.check
    monkeypatch.setattr(page_html, "check", lambda html: (checked.append(html), check(html))[1])
    plugin = page_html.PageHTMLPlugin()
    page = SimpleNamespace(file=SimpleNamespace(src_uri="en/index.md", abs_src_path=None), markdown="")
    config = SimpleNamespace(docs_dir="docs")
    clean, bad = "<p>A page.</p>", '<p>A page.</p><img src="x.png" onerror="alert(1)">'
    for content in (clean, clean, bad, bad, clean):  # rebuilds of one `mkdocs serve` (a fresh plugin: nothing kept)
        plugin.on_page_content(content, page=page, config=config, files=None)
    assert checked == [clean, bad, bad]  # content found clean is not read again; any other content is
    assert caplog.text.count("the attribute `onerror` of <img> runs script") == 2
