"""examples-csp (src/mkdocs_examples/site/csp.py) and overrides/main.html: each page's Content-Security-Policy
allows the theme's inline scripts by their hashes, and no script of a page's content. The real site in the browser:
tests/test_browser_csp.py."""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from types import SimpleNamespace

from helpers import ROOT, build_site
from test_site_plugins import fixture

from mkdocs_examples.site import csp

POLICY = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')


def sha256(text: str) -> str:
    return f"'sha256-{base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()}'"


def script_src(page: str) -> list[str]:
    (policy,) = POLICY.findall(page)
    (sources,) = [d.split()[1:] for d in policy.split(";") if d.split()[:1] == ["script-src"]]
    return sources


def test_the_hashes_are_those_of_the_inline_scripts_a_browser_runs():
    page = (
        "<script>a()</script><script src='x.js'></script><script type='application/json'>{}</script>"
        '<SCRIPT type="module">\r\nb("</p>")</SCRIPT><!-- text --><script>a()</script>'
    )  # a browser reads \r\n as \n
    assert csp.hashes(page) == sorted([sha256("a()"), sha256('\nb("</p>")')])


def test_a_page_allows_the_themes_inline_scripts_and_not_one_its_content_brings(tmp_path):
    root = fixture(tmp_path, "examples-csp")  # not examples-page-html, which would refuse the page's script
    config = root / "mkdocs.yml"
    overrides = f"  name: material\n  custom_dir: {ROOT / 'overrides'}\n"
    config.write_text(config.read_text().replace("  name: material\n", overrides))
    page = root / "docs" / "en" / "index.md"
    page.write_text(page.read_text() + "\n<script>window.fromThePage = 1</script>\n")
    build_site(root)
    built = (root / "site" / "index.html").read_text()
    theirs = re.findall(r"<script>(.*?)</script>", built, re.S)  # Material's and overrides/'s, and the page's
    assert "window.fromThePage = 1" in theirs and len(theirs) > 2
    sources = script_src(built)
    assert sources == ["'self'", *sorted(sha256(s) for s in set(theirs) if s != "window.fromThePage = 1")]
    assert "'unsafe-inline'" not in sources and "mx-content" not in built  # the content's marks are gone
    not_found = (root / "site" / "404.html").read_text()  # no page's content: each of its scripts
    inline = re.findall(r"<script>(.*?)</script>", not_found, re.S)
    assert len(inline) > 2 and script_src(not_found)[1:] == sorted({sha256(s) for s in inline})


def test_under_mkdocs_serve_the_live_reload_script_is_allowed_by_its_hash():
    """MkDocs 1.6 puts an inline script into each page `mkdocs serve` serves: examples-csp wraps the method that does,
    LiveReloadServer._inject_js_into_html. If an upgrade of MkDocs moves it, this fails."""
    from mkdocs.livereload import LiveReloadServer

    server = SimpleNamespace(_inject_js_into_html=functools.partial(LiveReloadServer._inject_js_into_html, None))
    assert csp.CSPPlugin().on_serve(server, config=None, builder=None) is server
    policy = "default-src 'self'; script-src 'self' 'sha256-abc='; style-src 'self'"
    page = f'<html><head><meta http-equiv="Content-Security-Policy" content="{policy}"></head><body>x</body></html>'
    served = server._inject_js_into_html(page.encode(), 42).decode()
    (script,) = re.findall(r"<script>(.*?)</script>", served, re.S)
    assert "livereload(42, " in script
    assert f"script-src 'self' {sha256(script)} 'sha256-abc='; style-src" in served


def test_the_placeholder_of_the_hashes_is_an_option_of_the_plugin():
    plugin = csp.CSPPlugin()
    assert plugin.load_config({"placeholder": "'hashes-here'"}) == ([], [])
    page = "<meta content=\"script-src 'self' 'hashes-here'\"><script>a()</script>"
    built = plugin.on_post_template(page, template_name="404.html", config=None)
    assert built == f"<meta content=\"script-src 'self' {sha256('a()')}\"><script>a()</script>"
    default = page.replace("'hashes-here'", csp.TOKEN)  # another placeholder: not this plugin's
    assert plugin.on_post_template(default, template_name="404.html", config=None) == default
    errors, _ = csp.CSPPlugin().load_config({"placeholder": 3})
    assert [key for key, _ in errors] == ["placeholder"]
