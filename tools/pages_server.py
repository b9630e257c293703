"""A built site served as GitHub Pages serves it, for the browser tests, the search measures and Lighthouse.

    .venv/bin/python tools/pages_server.py [SITE] [--port PORT]   # SITE: site/ by default; prints its URL

- every path also under the path of ``site_url`` (``/pytorch-tips/x`` is ``/x``), where the site's
  absolute links (the 404 page's, the sitemap's) point;
- a missing file is answered with the site's ``404.html``, status 404;
- text (HTML, CSS, JavaScript, JSON, XML, SVG) is sent gzipped to a browser that accepts it, as
  GitHub Pages sends it, so that what a page transfers is what a reader's browser transfers.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from links import site_base  # tools/links.py

ROOT = Path(__file__).resolve().parent.parent
# what GitHub Pages compresses (its CDN compresses text types; images and fonts go as they are)
GZIPPED = ("text/", "application/javascript", "application/json", "application/xml", "image/svg+xml")


def handler(folder: Path, prefix: str) -> type[SimpleHTTPRequestHandler]:
    """The request handler of the site in ``folder``, hosted under the path ``prefix`` (``/pytorch-tips``)."""

    class Pages(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def translate_path(self, path: str) -> str:
            if prefix and (path == prefix or path.startswith(prefix + "/")):
                path = path[len(prefix) :] or "/"
            return super().translate_path(path)

        def _gzips(self, content_type: str) -> bool:
            accepts = "gzip" in self.headers.get("Accept-Encoding", "")
            return accepts and content_type.startswith(GZIPPED)

        def do_GET(self) -> None:
            self._serve(head=False)

        def do_HEAD(self) -> None:
            self._serve(head=True)

        def _serve(self, *, head: bool) -> None:
            path = Path(self.translate_path(self.path))
            url = urlsplit(self.path)
            if path.is_dir() and not url.path.endswith("/"):  # a folder: its address with a slash
                self.send_response(301)
                self.send_header("Location", urlunsplit(url._replace(path=url.path + "/")))
                self.send_header("Content-Length", "0")
                return self.end_headers()
            if path.is_dir():
                path = path / "index.html"
            status = 200
            if not path.is_file():
                status, path = 404, folder / "404.html"
                if not path.is_file():
                    return self.send_error(404)
            body = path.read_bytes()
            content_type = self.guess_type(str(path))
            if content_type.startswith("text/"):
                content_type += "; charset=utf-8"
            compressed = self._gzips(content_type)
            if compressed:
                body = gzip.compress(body, 6, mtime=0)
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            if compressed:
                self.send_header("Content-Encoding", "gzip")
            self.send_header("Vary", "Accept-Encoding")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "max-age=600")  # GitHub Pages' own
            self.end_headers()
            if not head:
                self.wfile.write(body)

    return Pages


@contextmanager
def served(site: Path | str, port: int = 0) -> Iterator[str]:
    """``site`` served on ``port`` (a free one by default) of 127.0.0.1, as GitHub Pages serves it: its base URL."""
    folder, prefix = Path(site), site_base(ROOT / "mkdocs.yml").rstrip("/")
    server = ThreadingHTTPServer(("127.0.0.1", port), functools.partial(handler(folder, prefix), directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", type=Path, default=ROOT / "site")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    with served(args.site, args.port) as url:
        print(f"{url}{site_base(ROOT / 'mkdocs.yml')}", flush=True)
        threading.Event().wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
