"""Check the links of a built site: every page, file and #anchor it links to must exist.

    python tools/links.py site                 # internal links: pages, assets, anchors
    python tools/links.py site --external      # also fetch every http(s) link once (slow; CI runs it weekly)
    python tools/links.py site --markdown      # the report as Markdown, for a CI job summary

Absolute links (``/pytorch-tips/assets/...``) are resolved against the path of
``site_url`` in mkdocs.yml. Exit status 1 when a link is broken.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import sys
import urllib.error
import urllib.request
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

from mkdocs_examples import yaml_files

_ATTRIBUTES = {"href", "src"}
_IGNORED = ("mailto:", "javascript:", "data:", "tel:")
_AGENT = "pytorch-tips-link-check (+https://github.com/pytorch-tips/pytorch-tips)"


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.anchors: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name") and (name == "id" or tag == "a"):
                self.anchors.add(value)
            elif name in _ATTRIBUTES and not (tag == "link" and ("rel", "canonical") in attrs):
                self.links.append(value)


def parse(file: Path) -> _Page:
    page = _Page()
    page.feed(file.read_text(encoding="utf-8", errors="replace"))
    return page


def check(site: Path, base: str = "/") -> tuple[dict[str, list[str]], dict[str, list[str]], int]:
    """(broken internal link -> pages linking to it, external URL -> pages linking to it, internal links)."""
    site = site.resolve()
    pages = {f.relative_to(site).as_posix(): parse(f) for f in sorted(site.rglob("*.html"))}
    broken: dict[str, list[str]] = defaultdict(list)
    external: dict[str, list[str]] = defaultdict(list)
    internal = 0
    for name, page in pages.items():
        here = "/" + name
        for link in page.links:
            if link.startswith(_IGNORED) or (link.startswith("#") and not link[1:]):
                continue
            if urlsplit(link).scheme in ("http", "https") or link.startswith("//"):
                external[urldefrag(link).url].append(name)
                continue
            internal += 1
            url, fragment = urldefrag(urljoin(here, link))
            path = unquote(urlsplit(url).path)
            if link.startswith("/"):  # absolute: under the path of site_url
                if not path.startswith(base):
                    broken[link].append(name)
                    continue
                path = "/" + path[len(base) :]
            target = _target(site, path)
            if target is None:
                broken[link].append(name)
            elif fragment and target.suffix == ".html":
                key = target.relative_to(site).as_posix()
                anchors = pages[key].anchors if key in pages else parse(target).anchors
                if unquote(fragment) not in anchors:
                    broken[link].append(name)
    return dict(broken), dict(external), internal


def _target(site: Path, path: str) -> Path | None:
    """The file a site path serves, as a static host would (``dir/`` -> ``dir/index.html``)."""
    file = (site / path.lstrip("/")).resolve()
    if not file.is_relative_to(site.resolve()):
        return None
    if file.is_dir():
        file = file / "index.html"
    return file if file.is_file() else None


def fetch(urls: list[str], timeout: float = 20) -> dict[str, str]:
    """URL -> why it failed, for the URLs that do not answer with a success (tried twice)."""

    def one(url: str) -> str | None:
        why = "?"
        for method in ("HEAD", "GET", "GET"):  # some hosts refuse HEAD; the last GET is a retry
            request = urllib.request.Request(url, method=method, headers={"User-Agent": _AGENT})
            try:
                with urllib.request.urlopen(request, timeout=timeout):
                    return None
            except urllib.error.HTTPError as error:
                error.close()
                why = f"HTTP {error.code}"
                if error.code == 404 and method == "GET":
                    return why
            except (urllib.error.URLError, TimeoutError, OSError) as error:
                why = str(getattr(error, "reason", error))
        return why

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = dict(zip(urls, pool.map(one, urls), strict=True))
    return {url: why for url, why in answers.items() if why}


def site_base(config: Path) -> str:
    """The path of ``site_url`` in mkdocs.yml, with slashes around it: ``/pytorch-tips/``."""
    data = yaml_files.load(config)  # safe: its !!python tags are read as None
    path = urlsplit(str(data.get("site_url") or "/")).path.strip("/")
    return f"/{path}/" if path else "/"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the built site (site/)")
    parser.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"), help="for site_url")
    parser.add_argument("--external", action="store_true", help="also fetch every external link")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown report")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"error: {args.site} is not a built site (no index.html): run `make build` first", file=sys.stderr)
        return 2
    try:
        base = site_base(args.config_file)
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    broken, external, internal = check(args.site, base)
    failed = fetch(sorted(external)) if args.external else {}
    lines = [f"{link} (linked from {_pages(broken[link])})" for link in sorted(broken)]
    lines += [f"{url}: {why} (linked from {_pages(external[url])})" for url, why in sorted(failed.items())]
    pages = len(list(args.site.rglob("*.html")))
    checked = f"{internal} internal links" + (f" and {len(external)} external URLs" if args.external else "")
    checked += f" on {pages} pages"
    if args.markdown:
        print("## Links\n")
        print(f"Checked {checked}: " + (f"**{len(lines)} broken**\n" if lines else "none broken.\n"))
        print("\n".join(f"- `{line}`" for line in lines))
    else:
        print("\n".join(f"broken: {line}" for line in lines), file=sys.stderr)
        print(f"checked {checked}: {len(lines)} broken")
    return 1 if lines else 0


def _pages(names: list[str]) -> str:
    unique = sorted(set(names))
    return ", ".join(unique[:3]) + (f" and {len(unique) - 3} more" if len(unique) > 3 else "")


if __name__ == "__main__":
    sys.exit(main())
