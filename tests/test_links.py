"""tools/links.py: the link check CI runs on the built site."""

from __future__ import annotations

import http.server
import threading
from pathlib import Path

import pytest
from helpers import load_file

ROOT = Path(__file__).parent.parent
links = load_file("links", ROOT / "tools" / "links.py")


def page(body: str) -> str:
    return f"<!doctype html><html><body>{body}</body></html>"


@pytest.fixture
def site(tmp_path) -> Path:
    files = {
        "index.html": page(
            '<a href="a/">a</a> <a href="a/#second">anchor</a> <a href="a/#nowhere">bad anchor</a>'
            '<a href="missing/">missing</a> <img src="assets/logo.png"> <a href="/docs/a/">absolute</a>'
            '<a href="/elsewhere/a/">outside the base</a> <a href="#">top</a> <a href="mailto:x@y">mail</a>'
            '<a href="https://example.invalid/x">external</a> <a href="../../etc/passwd">escape</a>'
        ),
        "a/index.html": page('<h2 id="second">Second</h2><a href="../">up</a><a href="../b.html#top">b</a>'),
        "b.html": page('<a name="top"></a>'),
        "assets/logo.png": "png",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def test_broken_pages_files_and_anchors_are_found_and_the_rest_pass(site):
    broken, external, internal = links.check(site, "/docs/")
    assert broken == {
        "a/#nowhere": ["index.html"],
        "missing/": ["index.html"],
        "/elsewhere/a/": ["index.html"],
        "../../etc/passwd": ["index.html"],
    }
    assert external == {"https://example.invalid/x": ["index.html"]}
    assert internal == 10  # 8 on the index (not `#`, mailto or https), 2 on a/


def test_the_command_fails_and_names_the_link_and_its_page(site, capsys):
    (site / "mkdocs.yml").write_text("site_url: https://example.org/docs/\n")
    assert links.main([str(site), "-f", str(site / "mkdocs.yml")]) == 1
    captured = capsys.readouterr()
    assert "broken: missing/ (linked from index.html)" in captured.err
    assert "checked 10 internal links on 3 pages: 4 broken" in captured.out


def test_external_links_are_fetched_only_when_asked_and_a_404_fails(tmp_path):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_HEAD(self):
            self.send_response(200 if self.path == "/ok" else 404)
            self.end_headers()

        do_GET = do_HEAD

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}"
        assert links.fetch([f"{url}/ok", f"{url}/gone"], timeout=5) == {f"{url}/gone": "HTTP 404"}
    finally:
        server.shutdown()
        server.server_close()


def test_a_folder_that_is_not_a_built_site_is_refused(tmp_path, capsys):
    assert links.main([str(tmp_path)]) == 2
    assert "run `make build` first" in capsys.readouterr().err


def test_the_real_site_has_no_broken_internal_link(real_site):
    site, _ = real_site
    broken, _, internal = links.check(site, links.site_base(ROOT / "mkdocs.yml"))
    assert broken == {}
    assert internal > 5000
