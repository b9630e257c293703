"""Pages cannot script the site (the MkDocs plugin `examples-page-html`): the HTML a page brings is checked
before it is published.

Pages come from strangers' pull requests, and Markdown publishes the raw HTML in a page, and the
attributes `attr_list` puts on an element (``## Title {: onclick=… }``), as written. So the HTML of
a page's content (after Markdown and the plugins, before the theme wraps it) may hold none of:

- the elements that run code, embed another document, submit data or redirect: ``script``,
  ``iframe``, ``frame``, ``frameset``, ``object``, ``embed``, ``applet``, ``portal``, ``form``,
  ``meta``, ``base``;
- an event handler attribute (``on…``), or an SVG animation of one or of a link
  (``attributeName="on…"``, ``"href"``);
- a value that starts with ``javascript:`` or ``vbscript:`` (in any attribute: SVG and MathML read
  links from several), nor a ``data:`` URL except an image's (``<img src="data:image/…">``: the
  examples' figures are PNG data).

Each one found is a warning naming the page's file and line and saying what to write instead (a
strict build fails), and the build that goes on (`mkdocs serve`) publishes the page without it.
Comments, CDATA sections and processing instructions are read as HTML too, and no element's
content is read as raw text (``<svg><style>`` is markup to a browser): where html.parser and a
browser disagree on where such a thing ends, the check errs towards refusing. The site's
Content-Security-Policy (PyTorch Tips' overrides/main.html, the plugin examples-csp) is the second line: it lets no
inline script of a page's content run.

A page's content found clean is kept (in memory, by page, on the plugin, which MkDocs keeps for the
rebuilds of `mkdocs serve` as it has ``on_startup``): the same content is not read again, and any
other is checked in full.

The engine's notebook views (``.ipynb`` pages, rendered by mkdocs-jupyter with its own scripts) are
checked in their Markdown cells only (:func:`check_notes`): the notes of an example, which the engine
writes disarmed (publish/notebooks.py), and whose findings name the example. Not checked: the
theme's templates and overrides/ (never page content); examples-csp checks every built file after
the build, theirs included.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from mkdocs_examples import html_parse
from mkdocs_examples.html_parse import Parser
from mkdocs_examples.site import front_matter

log = get_plugin_logger("page_html")

_CODE = "show code in a fenced code block; the site's own scripts are files under docs/assets/, in mkdocs.yml"
_LINK = "link to it instead ([text](https://…))"
# element: what to write instead
REFUSED = {
    "script": _CODE,
    "iframe": _LINK,
    "frame": _LINK,
    "frameset": _LINK,
    "object": _LINK,
    "embed": _LINK,
    "applet": _LINK,
    "portal": _LINK,
    "form": "a page holds no form; " + _LINK,
    "meta": "a page's description is `description:` in its front matter; a redirect is a link",
    "base": "write each link in full, or relative to the page",
}
_VOID = {"meta", "base", "embed", "frame"}  # refused elements without content or an end tag
_KEEP_CONTENT = {"form"}  # a refused form's text and fields stay, without the form
SCRIPT_SCHEMES = ("javascript:", "vbscript:")
_ANIMATED = "attributename"  # SVG's <set>/<animate>: the attribute they change


@dataclass(frozen=True)
class Finding:
    tokens: tuple[str, ...]  # what the page's Markdown may have where it wrote it (lower case), to find its line
    message: str


def check(content: str) -> tuple[list[Finding], str]:
    """What in ``content`` (a page's HTML) could script the site, and the content without it (``content``
    itself, unchanged, when nothing is found)."""
    checker = _Checker()
    checker.parse(content)
    return checker.found, "".join(checker.out) if checker.found else content


def _attribute(tag: str, name: str, value: str | None) -> Finding | None:
    bare = "".join(c for c in (value or "") if c > " ").lower()  # as a browser reads a URL: no spaces, tabs, newlines
    if name.startswith("on"):
        why = "runs script: a page carries no event handler (in HTML or in an attribute list {: … }); remove it"
        return Finding((name,), f"the attribute `{name}` of <{tag}> {why}")
    if scheme := next((s for s in SCRIPT_SCHEMES if bare.startswith(s)), None):
        why = "runs script: link to a page or an address (https://…)"
        return Finding((scheme, f"{name}="), f'`{name}="{scheme}…"` on <{tag}> {why}')
    if bare.startswith("data:") and not (tag == "img" and name == "src" and bare.startswith("data:image/")):
        why = 'a page uses data: URLs for images only (<img src="data:image/…">); put the file under docs/, link to it'
        return Finding(("data:", f"{name}="), f'`{name}="data:…"` on <{tag}>: {why}')
    if name == _ANIMATED and (bare.startswith("on") or bare.endswith("href")):
        return Finding((bare, name), f"<{tag}> animates `{bare}`, which can run script: remove the animation")
    return None


class _Checker(Parser):
    """Reads a page's HTML, keeps what it finds, and writes it again without (``out``)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)  # text and references come back as written
        self.found: list[Finding] = []
        self.out: list[str] = []
        self.skipping: tuple[str, int] | None = None  # a refused element whose content is left out: tag, depth

    def set_cdata_mode(self, *args: object, **kwargs: object) -> None:
        """No raw text: what is inside <script> or <style> is read as HTML too (inside <svg>, a browser does)."""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closed=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closed=True)

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], *, closed: bool) -> None:
        if self.skipping is not None:
            name, depth = self.skipping
            self.skipping = (name, depth + (tag == name and not closed))
            return
        if tag in REFUSED:
            self.found.append(Finding((f"<{tag}",), f"<{tag}> cannot be in a page: {REFUSED[tag]}"))
            if not (closed or tag in _VOID or tag in _KEEP_CONTENT):
                self.skipping = (tag, 1)
            return
        problems = [(name, value, _attribute(tag, name, value)) for name, value in attrs]
        self.found += [problem for _, _, problem in problems if problem]
        if not any(problem for _, _, problem in problems):
            self.out.append(self.get_starttag_text() or "")
            return
        kept = "".join(
            f" {name}" if value is None else f' {name}="{escape(value, quote=True)}"'
            for name, value, problem in problems if problem is None
        )  # fmt: skip
        self.out.append(f"<{tag}{kept}{' /' if closed else ''}>")

    def handle_endtag(self, tag: str) -> None:
        if self.skipping is not None:
            name, depth = self.skipping
            self.skipping = None if (tag == name and depth == 1) else (name, depth - (tag == name))
        elif tag not in REFUSED:
            self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if self.skipping is None:
            self.out.append(data)

    def handle_entityref(self, name: str) -> None:
        self.handle_data(f"&{name};")

    def handle_charref(self, name: str) -> None:
        self.handle_data(f"&#{name};")

    # Read as HTML too: a browser may end a comment earlier than html.parser (`--!>`), or read as markup
    # what html.parser takes for a declaration
    def handle_comment(self, data: str) -> None:
        self._inner(data, f"<!--{data}-->")

    def handle_decl(self, decl: str) -> None:
        self._inner(decl, f"<!{decl}>")

    def unknown_decl(self, data: str) -> None:
        self._inner(data, f"<![{data}]>")

    def handle_pi(self, data: str) -> None:
        self._inner(data, f"<?{data}>")

    def _inner(self, text: str, written: str) -> None:
        found, _ = check(text)
        self.found += found
        if not found:
            self.handle_data(written)


NOTE = "jp-RenderedMarkdown"  # the class of a Markdown cell's HTML in mkdocs-jupyter's views (nbconvert's lab)


def check_notes(content: str) -> tuple[list[Finding], str]:
    """What in the Markdown cells of a notebook view's ``content`` could script the site, and the content with
    each such cell's HTML made safe (``content`` itself where nothing is found). The rest of a view is
    mkdocs-jupyter's (its scripts) and the engine's (code and outputs as text): not read here."""
    found: list[Finding] = []

    def edit(element: html_parse.Element) -> str | None:
        if NOTE not in element.classes:
            return None
        those, safe = check(element.inner)
        found.extend(those)
        return f"{element.start_tag}{safe}{element.end_tag}" if those else None

    safe = html_parse.rewrite(content, edit, html_parse.find_all(content, "div", holding=NOTE))
    return found, safe if found else content


class _Lines:
    """Where tokens occur in a page's Markdown, in any case, each occurrence given once, in order: each
    token is searched for from after its last occurrence given, and a place's line is found by bisection,
    so that many findings on a large page take time in its size, not in its size times their number."""

    def __init__(self, source: str) -> None:
        self.text = source.lower()
        self.breaks = [found.start() for found in re.finditer("\n", self.text)]
        self.after: dict[str, int] = {}  # token: where its last occurrence given starts

    def next(self, token: str) -> int | None:
        """The line of the next occurrence of ``token`` not given yet; None if there is none."""
        at = self.text.find(token, self.after.get(token, -1) + 1)
        if at < 0:
            return None
        self.after[token] = at
        return bisect.bisect_left(self.breaks, at) + 1


class PageHTMLConfig(Config):
    # the keys a page's front matter may set (site/front_matter.py); never `template`
    front_matter = config_options.ListOfItems(config_options.Type(str), default=list(front_matter.ALLOWED))


class PageHTMLPlugin(BasePlugin[PageHTMLConfig]):
    def __init__(self) -> None:
        super().__init__()
        self.clean: dict[str, str] = {}  # src_uri: the page's content last found clean (`serve` rebuilds every page)

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.clean.clear()

    def on_shutdown(self) -> None:
        self.clean.clear()

    @event_priority(100)  # before any plugin reads the front matter or adds to it (a description, a date)
    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        if not page.file.src_uri.endswith(".md"):  # the engine's notebook views: their front matter is the engine's
            return markdown
        found = front_matter.check(page.meta, self.config.front_matter)
        if found:
            shown = f"{Path(config.docs_dir).name}/{page.file.src_uri}"
            path = page.file.abs_src_path
            source = Path(path).read_text(encoding="utf-8") if path else ""
            for finding in found:
                line = front_matter.line(source, finding.key)
                log.warning(f"{shown}{f':{line}' if line else ''}: {finding.message}")
                del page.meta[finding.key]  # a build that goes on publishes the page without it
        return markdown

    @event_priority(100)  # before search indexes the content and examples-pages links API names in it
    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        uri = page.file.src_uri
        if self.clean.get(uri) == html:
            return html
        view = uri.endswith(".ipynb")  # a notebook view of the engine's: mkdocs-jupyter's scripts, the notes' HTML
        found, safe = check_notes(html) if view else check(html)
        if not found:
            self.clean[uri] = html
            return html
        if view:
            examples: Any = config.plugins.get("examples")  # the engine's API (docs/site.md)
            example = examples.example_of_view(uri) if examples is not None else None
            path = str(examples.examples_dir / example) if example else None
            shown = f"{Path(examples.examples_dir).name}/{example}" if example else uri
            hint = " (a note of the example, `# %% [markdown]`: write it as text, code in a code span)"
        else:
            path, shown, hint = page.file.abs_src_path, f"{Path(config.docs_dir).name}/{uri}", ""
        source = Path(path).read_text(encoding="utf-8") if path else (page.markdown or "")
        lines = _Lines(source)
        for finding in found:
            line = None
            for token in finding.tokens:  # a scheme written as character references: the attribute's name
                if (line := lines.next(token)) is not None:
                    break
            log.warning(f"{shown}{f':{line}' if line else ''}: {finding.message}{hint}")
        return safe
