"""Every HTML file of a built site carries the Content-Security-Policy first and nothing that scripts the site
(src/mkdocs_examples/site/built_html.py, run by examples-csp after the build), whatever template or plugin wrote
it; and the tokenizer it reads with (html_parse.tags) finds tags where a browser does, in linear time."""

from __future__ import annotations

from pathlib import Path

import material
import pytest
from helpers import ROOT, build_site
from mkdocs.exceptions import Abort
from test_linear import FLOOR, RATIO, _fastest
from test_site_plugins import fixture

from mkdocs_examples import html_parse
from mkdocs_examples.site import built_html

POLICY = (
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'self'; script-src 'self' 'sha256-x'; "
    "object-src 'none'; base-uri 'none'; worker-src 'self'\">"
)
THEME = [ROOT / "overrides", Path(material.__file__).parent / "templates"]


def page(head: str = "", body: str = "<p>Text.</p>", policy: str = POLICY) -> str:
    return f'<!doctype html><html><head>{policy}<meta charset="utf-8">{head}</head><body>{body}</body></html>'


@pytest.fixture(scope="module")
def scripts() -> built_html.Scripts:
    return built_html.theme_scripts(THEME)


# a built file: what the check says of it
HOSTILE = {
    page(policy=""): "the first element of <head> is <meta>, not the Content-Security-Policy's",
    page().replace(POLICY + '<meta charset="utf-8">', '<meta charset="utf-8">' + POLICY): "the first element",
    "<p>no head</p>": "no <head>",
    page('<meta http-equiv="refresh" content="0;url=https://example.org/">'): '<meta http-equiv="refresh">',
    page('<META HTTP-EQUIV=Refresh CONTENT="0">'): '<meta http-equiv="refresh">',
    page('<meta name="author" content=""><script>alert(document.domain)</script>'): "an inline script that none",
    page(body='<script>alert(1)</script>'): "an inline script that none",
    page(body="<script>__md_scope=1;alert(1)</script>"): "an inline script that none",
    page(body='<script src="https://example.org/x.js"></script>'): "runs only scripts of its own files",
    page(body='<script src="//example.org/x.js"></script>'): "runs only scripts of its own files",
    page(body='<iframe src="https://example.org/"></iframe>'): "<iframe> embeds another document",
    page('<base href="https://example.org/">'): "<base> embeds another document or moves every link",
    page(body='<img src=x onerror="alert(1)">'): "the attribute `onerror` of <img> runs script",
    page(body='<a title=">" onclick="alert(1)">x</a>'): "the attribute `onclick` of <a> runs script",
    page(body='<a href="&#106;avascript:alert(1)">x</a>'): '`href="javascript:…"` on <a> runs script',
    page(body='<form action="https://example.org/"></form>'): "no form of the site is sent anywhere",
    page(body='<meta http-equiv="refresh" content="0">'): "<meta> outside <head>",
    page(body='<!-- x --!><img src=x onerror=alert(1)> -->'): "the attribute `onerror`",
    page(body='<![CDATA[><img src=x onerror=alert(1)>]]>'): "the attribute `onerror`",
    page(policy=POLICY.replace("'sha256-x'", "'unsafe-inline'")): "lets other scripts run: script-src 'unsafe-inline'",
    page(policy=POLICY.replace("'sha256-x'", "'inline-script-hashes'")): "still holds its placeholder",
    page(policy=POLICY.replace(" worker-src 'self'", " worker-src *")): "lets workers come from elsewhere",
    page(policy=POLICY.replace("object-src 'none'; ", "")): "does not say object-src 'none'",
    page(POLICY): "more than one Content-Security-Policy",
    page(policy=POLICY + " " * 1100): "the charset <meta> starts after the first 1024 bytes",
}  # fmt: skip


@pytest.mark.parametrize("html", HOSTILE)
def test_the_check_finds_what_could_script_the_site(html, scripts):
    problems = built_html.check(html, scripts)
    assert any(HOSTILE[html] in p for p in problems), problems


def test_the_themes_own_scripts_and_markup_pass(scripts):
    body = (
        '<script>__md_scope=new URL("../..",location),__md_hash=e=>[...e].reduce(((e,_)=>(e<<5)-e+_.charCodeAt(0)),0),'
        '__md_get=(e,_=localStorage,t=__md_scope)=>JSON.parse(_.getItem(t.pathname+"."+e)),__md_set=(e,_,t=localStorage,'
        'a=__md_scope)=>{try{t.setItem(a.pathname+"."+e,JSON.stringify(_))}catch(e){}}</script>'
        '<script id="__config" type="application/json">{"x": "<b>"}</script>'
        '<script src="../assets/javascripts/bundle.js"></script><img src="data:image/png;base64,AAAA" alt="">'
        f"<script>{(ROOT / 'overrides' / 'partials' / 'palette.js').read_text()}</script>"
    )
    assert built_html.check(page(body=body), scripts) == []


def test_a_strict_build_fails_naming_a_file_the_theme_did_not_write(tmp_path, caplog):
    root = fixture(tmp_path, "examples-csp")
    config = root / "mkdocs.yml"
    theme = f"  name: material\n  custom_dir: {ROOT / 'overrides'}\n"
    config.write_text(config.read_text().replace("  name: material\n", theme))
    build_site(root, strict=True)  # the site's own pages, notebook views off: clean
    (root / "docs" / "en" / "extra.html").write_text('<p>A page of its own.</p><script>alert(1)</script>')
    with pytest.raises(Abort):
        build_site(root, strict=True)
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and warnings[0].startswith("csp: site/extra.html: no <head>"), warnings


def test_the_tokenizer_finds_tags_where_a_browser_does():
    def read(html: str) -> list[tuple[str, bool, list]]:
        return [(t.name, t.closing, t.attrs) for t in html_parse.tags(html)]

    assert read('<a title=">" onclick="x">') == [("a", False, [("title", ">"), ("onclick", "x")])]
    assert read("<!-- a --!><img onerror=1>") == [("img", False, [("onerror", "1")])]
    assert read("<!--><b>") == read("<!---><b>") == [("b", False, [])]
    assert read("<![CDATA[><img src=x>]]>") == [("img", False, [("src", "x")])]  # in HTML: a bogus comment
    assert read("<script>a<b>'</script ><i>") == [("script", False, []), ("script", True, []), ("i", False, [])]
    assert read("<a/onclick=x>") == [("a", False, [("onclick", "x")])]
    assert read('<A HREF="&#106;avascript:1">') == [("a", False, [("href", "javascript:1")])]
    assert read('<a x="never closed <img onerror=1>') == []  # a browser reads the rest into the attribute
    assert read("x < y <3 </ 1> <img\nsrc=1\n/>") == [("img", False, [("src", "1")])]
    picked = html_parse.tags('<span class="n">x</span><a href="data:x"><meta>', names={"meta"}, words=("data:",))
    assert [t.name for t in picked] == ["a", "meta"]  # the span passed over


@pytest.mark.parametrize("unit", ["<!--", "<!--<!--", '<a x="', "<a ", "<a b=", "<", "<!", "<?", "</", "<script>",
                                  "<![CDATA[", '<b c="d">', "<a title='>' ", "<p " + "x" * 64])  # fmt: skip
def test_the_tokenizer_and_the_check_are_linear_in_hostile_input(unit, scripts):
    def read(html: str) -> None:
        built_html.check(html, scripts)
        list(html_parse.tags(html))

    small, large = page(body=unit * 4096), page(body=unit * 16384)
    at_n, at_4n = _fastest(read, [small] * 3, [large] * 3, f"the check on {unit!r}")
    assert at_4n < RATIO * max(at_n, FLOOR), (at_n, at_4n)  # CPU time: 4 when linear, 16 when quadratic


def test_the_summary_lists_what_the_check_finds_in_a_built_site(tmp_path, capsys):
    from mkdocs_examples.cli import main

    site = tmp_path / "site"
    (site / "page").mkdir(parents=True)
    (site / "index.html").write_text(page())
    (site / "page" / "index.html").write_text(page('<meta http-equiv="refresh" content="0">'))
    (site / "linked.html").symlink_to(site / "page" / "index.html")  # a link in an artifact: not followed
    changed = tmp_path / "changed"
    changed.write_text("docs/en/page.md\n")
    assert main(["unsandboxed", str(changed), "-f", str(ROOT / "mkdocs.yml"), "--site", str(site)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("### What the built site holds that the site refuses\n")
    assert "- `page/index.html`: <meta http-equiv=\"refresh\">" in out
    assert "index.html`" not in out.replace("page/index.html`", "") and "linked" not in out
