"""Front matter is data, never markup (src/mkdocs_examples/site/front_matter.py, the option ``front_matter`` of
examples-page-html), and a page's title from its heading stays text in <title> (overrides/main.html).

Each payload is front matter a stranger's page could bring, written with YAML escapes (``\\x3c`` for ``<``) or in
backticks, as the fourth hostile review wrote them: a strict build stops, naming the page's file, line and key; any
other build publishes the page without the key, and the site's post-build check (examples-csp) finds nothing.
"""

from __future__ import annotations

import pytest
from helpers import ROOT, build_site
from mkdocs.exceptions import Abort
from test_site_plugins import fixture

from mkdocs_examples.site import built_html, front_matter

# front matter line: what the warning says, and what of it must not reach any built file (None: nothing to find)
PAYLOADS = {
    r'author: "\"\x3e\x3cscript\x3ealert(document.domain)\x3c/script\x3e"': (
        "`author:` is not a key a page may set", "alert(document.domain)"),
    r'title: "\x3cmeta http-equiv=\"refresh\" content=\"0;url=https://example.org/\"\x3e"': (
        "the value of `title:` holds `<`", "example.org"),
    "title: \"`<meta http-equiv=refresh content='0;url=https://example.org/'>`\"": (
        "the value of `title:` holds `<`", "example.org"),
    r'subtitle: "\x3cimg src=x onerror=alert(1)\x3e"': ("`subtitle:` is not a key a page may set", "onerror"),
    r'description: "\"\x3e\x3cscript\x3ealert(2)\x3c/script\x3e"': (
        "the value of `description:` holds `\"`", "alert(2)"),
    "template: base.html": ("`template:` cannot be set by a page", None),  # base.html: without the policy
    "icon: ../../../../etc/hostname": ("`icon:` is not a key a page may set", "hostname"),
    'search: {boost: "\\x3cb onmouseover=alert(3)\\x3e"}': ("the value of `search:` holds `<`", "alert(3)"),
    'hide: ["\\x26lt;script\\x26gt;"]': ("the value of `hide:` holds `&`", "&lt;script"),
}  # fmt: skip


def site_with(tmp_path, line: str):
    """The fixture site with the site's templates and plugins, and ``line`` as the front matter of a page of its
    own (``docs/en/page.md``, beside the home page that the English navigation lists first)."""
    root = fixture(tmp_path, "examples-page-html", "examples-csp")
    config = root / "mkdocs.yml"
    theme = f"  name: material\n  custom_dir: {ROOT / 'overrides'}\n"
    config.write_text(config.read_text().replace("  name: material\n", theme))
    (root / "docs" / "en" / "page.md").write_text(f"---\n{line}\n---\n\n# A page\n\nThe rest of the page.\n")
    return root


def test_the_keys_and_characters_a_page_may_set():
    assert front_matter.check({"title": "Views “and” copies", "search": {"boost": 2}, "take_away": "top"}) == []
    found = front_matter.check({"title": "a & b", "author": "x", "template": "base.html", "hide": ["toc", 'x"']})
    assert [f.key for f in found] == ["title", "author", "template", "hide"]
    assert front_matter.check({"description": "an escape \x1b[31m"})
    assert not front_matter.check({"description": "été 中文"})
    assert front_matter.check({"author": "x"}, allowed=["author"]) == []  # the option widens the list
    assert front_matter.check({"template": "main.html"}, allowed=["template"])  # never a template
    assert front_matter.line("---\ntitle: x\n'search': {}\n---\n# x\n", "search") == 3


@pytest.mark.parametrize("line", PAYLOADS)
def test_hostile_front_matter_stops_a_strict_build_naming_the_file_line_and_key(tmp_path, caplog, line):
    root = site_with(tmp_path, line)
    with pytest.raises(Abort):
        build_site(root, strict=True)
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warnings and warnings[0].startswith("page_html: docs/en/page.md:2: "), warnings
    assert PAYLOADS[line][0] in warnings[0]


@pytest.mark.parametrize("line", PAYLOADS)
def test_a_build_that_goes_on_publishes_the_page_without_the_key_and_every_file_passes_the_check(
    tmp_path, caplog, line
):
    root = site_with(tmp_path, line)
    build_site(root, strict=False)
    built = root / "site"
    page = (built / "page" / "index.html").read_text()
    assert "The rest of the page." in page and "md-header" in page  # the site's own template
    assert page.lstrip().lower().startswith("<!doctype html>")
    marker = PAYLOADS[line][1]
    for path in built_html.html_files(built):
        assert marker is None or marker not in path.read_text(), path
    assert not [r for r in caplog.records if r.getMessage().startswith("csp:")]  # the post-build check: clean


def test_a_headings_escaped_markup_stays_text_in_the_title(tmp_path, caplog):
    root = site_with(tmp_path, "search: {boost: 2}")
    heading = '# A &lt;/title&gt;&lt;meta http-equiv="refresh" content="0;url=https://example.org/"&gt;'
    (root / "docs" / "en" / "page.md").write_text(f"{heading}\n\nText.\n")
    build_site(root, strict=True)  # no warning: the post-build check finds no <meta http-equiv="refresh">
    page = (root / "site" / "page" / "index.html").read_text()
    title = page[page.index("<title>") : page.index("</title>")]
    assert "&lt;meta http-equiv=&#34;refresh&#34;" in title and "<meta" not in title


def test_the_summary_lists_every_hostile_front_matter_key_as_the_build_reads_it(tmp_path, capsys):
    from mkdocs_examples.cli import main

    pages = tmp_path / "docs" / "en"
    pages.mkdir(parents=True)
    for number, line in enumerate(PAYLOADS):
        (pages / f"p{number}.md").write_text(f"---\n{line}\n---\n\n# Page\n")
    (pages / "plain.md").write_text("---\ntitle: Views and copies\nsearch: {boost: 2}\n---\n\n# Plain\n")
    (pages / "broken.md").write_text("---\ntitle: [unclosed\n---\n\n# Broken\n")
    changed = tmp_path / "changed"
    changed.write_text("".join(f"docs/en/{p.name}\n" for p in sorted(pages.iterdir())))
    assert main(["unsandboxed", str(changed), "-f", str(ROOT / "mkdocs.yml"), "--pages", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    section = out[out.index("### Front matter the build refuses") :]
    for number, line in enumerate(PAYLOADS):
        assert f"- `docs/en/p{number}.md` line 2: {PAYLOADS[line][0]}" in section, line
    assert "plain.md" not in out and "- `docs/en/broken.md`: docs/en/broken.md:" in section


def test_the_manuals_name_the_keys_a_page_may_set():
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    rule = contributing[contributing.index("6. Raw HTML") :].split("\n## ")[0][:600]
    assert all(f"`{key}`" in rule for key in front_matter.ALLOWED), rule
    site = (ROOT / "src" / "mkdocs_examples" / "docs" / "site.md").read_text(encoding="utf-8")
    assert f"| `front_matter` | `[{', '.join(front_matter.ALLOWED)}]` |" in site
