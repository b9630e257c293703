"""The site's own inline scripts, allowed by hash in each page's Content-Security-Policy (the MkDocs plugin
`examples-csp`).

The site's template (PyTorch Tips' overrides/main.html) gives every page a policy whose script-src
holds ``'inline-script-hashes'`` (the option ``placeholder``); this plugin writes in its place the
sha256 of each inline script of the page as written (Material's ``__md_scope`` names the page's
depth, ``"../.."``, so its hash differs from page to page).

Only the scripts of the theme's templates and overrides/ are hashed, never one in a page's content:
a script that a page brought past examples-page-html (page_html.py) would not run. The content is
told apart by two comments put around it as the last step of ``on_page_content`` and taken out
again here; they carry a random token of this process, so a page cannot write one to end its
content early. The engine's notebook views (``.ipynb`` pages) are the exception: their content
holds mkdocs-jupyter's own scripts, which are hashed too. A 404 page shows no page's content: all
its scripts are hashed (PyTorch Tips' English one writes the Chinese one in its own place, under
its own policy: overrides/404.html; the Chinese page's scripts are the English page's but for its
language's, tests/test_browser.py checks that none is refused). Under `mkdocs serve`, the
live-reload script MkDocs puts into each page it serves is allowed by its hash too.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from mkdocs_examples.html_parse import SCRIPT_TYPES, Parser
from mkdocs_examples.mkdocs import i18n, upstream
from mkdocs_examples.site import built_html

log = get_plugin_logger("csp")

_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
TOKEN = "'inline-script-hashes'"  # what the template's policy holds where the hashes go, by default
_MARK = secrets.token_hex(16)
START, END = f"<!--mx-content {_MARK}-->", f"<!--/mx-content {_MARK}-->"


class _Scripts(Parser):
    """The text of each inline script of a piece of HTML, as a browser hashes it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)  # a script's text is raw: no reference in it is read
        self.texts: list[str] = []
        self._text: list[str] | None = None  # the inline script being read

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            found = dict(attrs)
            inline = "src" not in found and (found.get("type") or "").strip().lower() in SCRIPT_TYPES
            self._text = [] if inline else None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._text is not None:
            self.texts.append("".join(self._text))
            self._text = None


def _script_elements(html: str) -> list[str]:
    """Each ``<script …>…</script>`` of ``html``, for html.parser to read: the rest (mostly the navigation) is
    skipped, which makes a page's hashes about ten times faster to find. Every script element starts with
    ``<script``, so none is missed; one inside a comment would be hashed too, and allowed to do nothing."""
    lower, elements, at = html.translate(_ASCII_LOWER), [], 0  # the same length: str.lower() may change it
    while (start := lower.find("<script", at)) >= 0:
        end = lower.find("</script", start)
        close = lower.find(">", end) if end >= 0 else -1
        at = len(html) if close < 0 else close + 1
        elements.append(html[start:at])
    return elements


def hashes(*pieces: str) -> list[str]:
    """The CSP sources (``'sha256-…'``) of every inline script in ``pieces`` of HTML, each once, sorted."""
    found = set()
    for piece in pieces:
        scripts = _Scripts()
        for element in _script_elements(piece):
            scripts.parse(element)
            scripts.reset()
        for text in scripts.texts:
            normal = text.replace("\r\n", "\n").replace("\r", "\n")  # as a browser reads the page
            found.add(f"'sha256-{base64.b64encode(hashlib.sha256(normal.encode()).digest()).decode()}'")
    return sorted(found)


def with_hashes(output: str, *trusted: str, token: str = TOKEN) -> str:
    """``output`` with the hashes of the inline scripts of its ``trusted`` pieces where the policy asks for them
    (``token``, the option ``placeholder``)."""
    if f" {token}" not in output:  # not a page of the template with the policy
        return output
    return output.replace(f" {token}", "".join(f" {source}" for source in hashes(*trusted)), 1)


class CSPConfig(Config):
    # what the template's policy holds in its script-src where the hashes go
    placeholder = config_options.Type(str, default=TOKEN)
    # after the build, every HTML file of the site is checked (site/built_html.py)
    check_site = config_options.Type(bool, default=True)


class CSPPlugin(BasePlugin[CSPConfig]):
    def __init__(self) -> None:
        super().__init__()
        self.clean: dict[str, str] = {}  # a built file's path: the sha256 of its text, last found clean

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.clean.clear()

    @event_priority(-500)  # after static-i18n built every language and examples-pages wrote their 404 pages
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if not self.config.check_site or i18n.is_nested_build(config):
            return
        site = Path(config.site_dir)
        scripts = built_html.theme_scripts(built_html.template_folders(config.theme.dirs))
        for path in built_html.html_files(site):
            text = path.read_text(encoding="utf-8", errors="replace")
            digest = hashlib.sha256(text.encode()).hexdigest()
            if self.clean.get(str(path)) == digest:
                continue
            problems = built_html.check(text, scripts)
            if not problems:
                self.clean[str(path)] = digest
                continue
            shown = f"{_site_name(site)}/{path.relative_to(site).as_posix()}"
            more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
            log.warning(
                f"{shown}: {'; '.join(problems[:3])}{more}. A built page holds only the site's template, with "
                "its policy first, and a page's own HTML as examples-page-html lets it through: a template or a "
                "plugin printed something of a page as markup"
            )

    @event_priority(-1000)  # the last change to the content: what the other hooks and plugins add is content too
    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        return f"{START}{html}{END}"

    @event_priority(-1000)  # after every other change to the page (the search plugin's script, the engine's views)
    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        token = self.config.placeholder
        before, start, rest = output.partition(START)
        content, end, after = rest.partition(END)
        if not (start and end):  # a template that shows no content: all of it is the theme's
            output = output.replace(START, "").replace(END, "")
            return with_hashes(output, output, token=token)
        output = before + content + after
        if page.file.src_uri.endswith(".ipynb"):  # the engine's notebook views: mkdocs-jupyter's scripts
            return with_hashes(output, output, token=token)
        return with_hashes(output, before, after, token=token)

    @event_priority(25)  # after the search plugin's change to the 404 page, before examples-pages keeps each language's
    def on_post_template(self, output: str, *, template_name: str, config: MkDocsConfig) -> str:
        return with_hashes(output, output, token=self.config.placeholder) if template_name.endswith(".html") else output

    def on_serve(
        self, server: LiveReloadServer, *, config: MkDocsConfig, builder: Callable[..., Any]
    ) -> LiveReloadServer:
        upstream.mkdocs_wrap_live_reload(server, _with_live_reload)
        return server


def _site_name(site: Path) -> str:
    """The name of the site's folder, as the reader of a warning knows it: the engine's plugin writes the site into
    ``.<site>.building-<pid>`` beside it (publish/staging.py) and swaps it in when the build ends well."""
    name = site.name
    if name.startswith(".") and ".building-" in name and name.rsplit("-", 1)[-1].isdigit():
        return name[1:].rsplit(".building-", 1)[0]
    return name


def _with_live_reload(inject: Callable[[bytes, int], bytes]) -> Callable[[bytes, int], bytes]:
    """The method of MkDocs' live-reload server that adds an inline script to each page it serves
    (mkdocs_examples/mkdocs/upstream.py), and here the hash of that script to the page's policy."""

    def injected(content: bytes, epoch: int) -> bytes:
        served = inject(content, epoch).decode()
        added = set(hashes(served)) - set(hashes(content.decode()))
        head, body = served.split("</head>", 1) if "</head>" in served else ("", served)
        policy = "script-src 'self'"  # as the template writes it: the hashes follow
        return (head.replace(policy, " ".join([policy, *sorted(added)]), 1) + "</head>" * bool(head) + body).encode()

    return injected
