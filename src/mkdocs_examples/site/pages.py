"""What readers expect of every page, in every language (the MkDocs plugin `examples-pages`).

- A description (``<meta name="description">``) from the page's first paragraph, so each
  page and each language has its own, unless the page's front matter sets one.
- The date of the last commit that changed the page or an example it embeds (git; absent
  outside a git checkout), shown by Material under the page and given to search engines as the
  page's ``<lastmod>`` in the sitemaps (the day of the build for a page without one).
- API names in code font in prose (`torch.cat`, `nn.Linear`, `F.cross_entropy`,
  `Tensor.detach`) link to the page and anchor that PyTorch's documentation gives them, as
  listed in the inventory of the option ``inventory`` (PyTorch Tips' data/pytorch_api.json,
  written by its tools/pytorch_inventory.py from PyTorch's docs sources): a name is looked up
  as written, then as the inventory's alias of a documented name (``torch.set_grad_enabled`` is
  documented as ``torch.autograd.grad_mode.set_grad_enabled``). Nothing is imported to resolve
  a name: a page's prose is a stranger's text, and importing a module it names runs that module
  (``torch.utils.model_dump.__main__`` parses the build's command line and loads the file it
  names). A name with no entry is a warning (a strict build fails) unless it is left unlinked on
  purpose (the option ``unlinked``: name, why); the values the inventory lists (dtypes, flags)
  are not linked. Without an inventory, no name is linked.
- Every code block a tab stop, so that a keyboard reaches one that is wider than the screen
  (Material's `content.lazy` makes a block focusable only once it comes on screen), and the
  ``hreflang`` links to the page's twin as absolute addresses.
- A heading's link to itself titled in the page's language ("Permanent link", "永久链接").
- A 404 page in each language, with links home, and a sitemap for each language.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from html import escape
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils.templates import TemplateContext

from mkdocs_examples import cjk, html_parse
from mkdocs_examples.mkdocs import i18n

log = get_plugin_logger("pages")

REFERENCE = "https://docs.pytorch.org/docs/stable/"  # the default of the option `reference`
SHORT = (("F.", "torch.nn.functional."), ("nn.", "torch.nn."), ("Tensor.", "torch.Tensor."), ("torch.", "torch."))
_JOINED = re.compile(r"(\S) (?=(\S))")  # a space between two characters of a description
# an API name, as the text of a <code> of prose: torch.cat, nn.Linear, F.cross_entropy(), Tensor.detach
_NAME = re.compile(r"((?:torch|nn|F|Tensor)\.[A-Za-z_][\w.]*)(\(\))?")
# no links inside links, code blocks or headings, nor inside a fold's summary: it is a control itself, and a link
# there is a control inside a control (a tap meant to open the fold follows the link)
_NOT_LINKED = ("a", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "summary")


class _Build:
    """What one build gathers across its languages: a new one when a build starts (`mkdocs serve` rebuilds)."""

    def __init__(self) -> None:
        self.dates: dict[str, str] | None = None  # path relative to mkdocs.yml: date of its last commit
        self.not_found: dict[str, str] = {}  # language: its 404 page


# The title of a heading's link to itself (the toc extension's `permalink_title`), in each language
PERMALINK = {"en": "Permanent link", "zh": "永久链接"}


# --- descriptions and dates -----------------------------------------------------------


def _first_paragraph(markdown: str) -> str | None:
    """The first paragraph of prose after the title, as plain text of at most about 160 characters."""
    body = re.sub(r"\A---\n.*?\n---\n", "", markdown, flags=re.S)
    body = re.sub(r"^[ \t]*(`{3,}|~{3,}).*?^[ \t]*\1[ \t]*$", "", body, flags=re.S | re.M)  # code blocks
    for block in re.split(r"\n\s*\n", body):
        if not block.strip() or block.startswith(("    ", "\t")):
            continue
        block = block.strip()
        if block.startswith(("#", "!!!", "???", "///", "|", "<", "- ", "* ", "> ", "1. ")):
            continue
        text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", block)  # links: their text
        text = re.sub(r"`|\*\*|(?<!\w)__|__(?!\w)", "", text)  # code marks, bold; not the _ in num_workers
        text = " ".join(text.split())
        text = _JOINED.sub(lambda m: m[1] if cjk.joins(m[1], m[2]) else m[0], text)  # a break in Chinese text
        if len(text) > 160:  # at the end of a sentence, or of a word
            cut = max(text.rfind("。", 0, 160), text.rfind(". ", 0, 160))
            text = text[: cut + 1] if cut > 60 else text[:157].rsplit(" ", 1)[0] + "…"
        return text
    return None


def _dates(root: Path, config: MkDocsConfig, build: _Build | None) -> dict[str, str]:
    """Path (relative to ``root``, the folder of mkdocs.yml) -> date of the last commit that changed it.

    Read from git once per build, so that `mkdocs serve` shows a commit made while it runs.
    """
    build = build or _Build()  # outside a build (a test): read, not kept
    if build.dates is None:
        build.dates = {}
        folders = [Path(config.docs_dir)]
        examples = config.plugins.get("examples")
        if examples is not None:
            folders.append(examples.examples_dir)
        wanted = [rel for folder in folders if (rel := _relative(folder, root))]
        try:
            out = subprocess.run(
                ["git", "log", "--relative", "--format=%x00%cs", "--name-only", "--", *wanted],
                cwd=root, capture_output=True, text=True, check=True, timeout=60,
            ).stdout  # fmt: skip
        except (OSError, subprocess.SubprocessError):
            return {}  # not a git checkout: no dates
        date = ""
        for line in out.splitlines():
            if line.startswith("\0"):
                date = line[1:]
            elif line and line not in build.dates:
                build.dates[line] = date  # newest first: the first date seen is the last change
    return build.dates


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return ""


# --- links to PyTorch's reference -------------------------------------------------------


def _where(page: Page, config: MkDocsConfig) -> Callable[[str], str]:
    """Where a page names an API: ``docs/en/x.md:12`` (the first line of its source that holds the name)."""
    shown = f"{Path(config.docs_dir).name}/{page.file.src_uri}"

    def where(name: str) -> str:
        source = page.markdown if page.file.abs_src_path is None else Path(page.file.abs_src_path).read_text("utf-8")
        lines = (source or "").splitlines()
        number = next((i for i, line in enumerate(lines, start=1) if f"`{name}" in line), None)
        return f"{shown}:{number}" if number else shown

    return where


def _link_name(
    code: html_parse.Element,
    *,
    where: Callable[[str], str],
    resolve: Callable[[str], str | None],
    fix: Callable[[], str],
) -> str | None:
    """A ``<code>`` of prose that names an API, linked to PyTorch's reference (``resolve``: the plugin's
    ``reference``); None if it is not linked. ``fix``: what a warning of a name with no entry says to do."""
    if (name := _NAME.fullmatch(code.inner)) is None:
        return None
    url = resolve(name[1])
    if url is None:
        return None
    if url == "":
        log.warning(f"{where(name[1])}: `{name[1]}` is not in PyTorch's documentation {fix()}")
        return None
    return f'<a href="{url}" class="mx-api" title="PyTorch reference">{code.outer}</a>'


@dataclass(frozen=True)
class Inventory:
    """The inventory (the option ``inventory``): what PyTorch's documentation publishes, and what the installed
    torch calls it."""

    names: dict[str, str]  # documented name: "page#anchor"
    aliases: dict[str, str]  # another name of a documented object: its documented name
    values: frozenset[str]  # dtypes, constants, flags: no entry of their own


def reference(
    name: str, inventory: Inventory, unlinked: Mapping[str, str] | None = None, base: str = REFERENCE
) -> str | None:
    """The reference URL of an API name (under ``base``); "" if PyTorch's documentation has no entry for it; None
    if not linked (a name of ``unlinked``, or a value).

    A name is looked up as written (short forms expanded), then as an alias of a documented name
    (``torch.set_grad_enabled`` is documented as ``torch.autograd.grad_mode.set_grad_enabled``);
    values (``torch.float32``) are not linked. Only the inventory is read: no module is imported.
    """
    name = name.removesuffix("()")
    full = next((long + name[len(short) :] for short, long in SHORT if name.startswith(short)), None)
    if full is None or full in (unlinked or {}) or full in inventory.values:
        return None
    documented = inventory.aliases.get(full, full)
    return base + inventory.names[documented] if documented in inventory.names else ""


@functools.cache
def read_inventory(path: str) -> Inventory:
    """The inventory at ``path`` (tools/pytorch_inventory.py writes it), read once per process; a clear error if it
    is missing or not one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        names, aliases, values = data["names"], data.get("aliases", {}), data.get("values", [])
        if not isinstance(names, dict) or not all(isinstance(v, str) for v in names.values()):
            raise ValueError('"names" is not an object of strings')
        if not isinstance(aliases, dict) or not all(v in names for v in aliases.values()):
            raise ValueError('"aliases" is not an object of documented names')
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise ValueError('"values" is not a list of strings')
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise PluginError(
            f"{path}: not an inventory of PyTorch's API names ({error}); "
            "write it again with tools/pytorch_inventory.py (design/site.md)"
        ) from error
    return Inventory(names, aliases, frozenset(values))


# --- the other language of a page, for search engines -------------------------------------


def _absolute_alternate(element: html_parse.Element, url: str) -> str | None:
    """A page's ``<link rel="alternate" hreflang>`` with an absolute address, as search engines read it
    (Material writes it relative to the page); ``url``: the page's own address. None for any other element."""
    attrs = element.attrs
    if element.tag != "link" or attrs.get("rel") != "alternate" or "hreflang" not in attrs:
        return None
    return html_parse.with_attribute(element, "href", urljoin(url, attrs.get("href") or ""))


# --- code blocks a keyboard reaches -------------------------------------------------------


def _focusable_code(code: html_parse.Element, block: html_parse.Element) -> str | None:
    """The ``<code>`` of a code block (``block``, its ``<pre>``) as a tab stop, so that a keyboard reader can
    scroll one that is wider than the screen; None for any other. Material makes such a block focusable when it
    mounts it, and with `content.lazy` (mkdocs.yml: a block is mounted, measured and given its copy button only
    once it comes on screen, not all at once as the page starts) a reader tabbing down the page would pass over
    the blocks below. Material takes the tab stop away again from a block it mounts that fits."""
    if code.start_tag != "<code>" or block.start_tag != "<pre>":
        return None
    if code.source[block.content : code.start] not in ("", "<span></span>"):  # Pygments' empty first span
        return None
    return f'<code tabindex="0">{code.inner}{code.end_tag}'


# --- 404 pages and sitemaps per language ------------------------------------------------


def _split_sitemap(site: Path, config: MkDocsConfig) -> None:
    """Next to the sitemap of every language, one per language at its root (Material's language switch reads it)."""
    sitemap = site / "sitemap.xml"
    if not sitemap.exists():
        return
    text = sitemap.read_text(encoding="utf-8")
    found = html_parse.elements(text)
    urls = [element for element in found if element.tag == "url"]
    if not urls:
        return
    # each <url> with the white space after it, up to the next one or the end of the <urlset>
    ends = [u.start for u in urls[1:]] + [urls[-1].parent.content_end if urls[-1].parent else len(text)]
    locations = {id(u): e.text() for e in found if e.tag == "loc" and (u := e.parent) is not None}
    base = config.site_url or ""
    for lang in i18n.languages(config)[1:]:  # every language but the default one
        mine = [text[u.start : end] for u, end in zip(urls, ends, strict=True)
                if locations.get(id(u), "").startswith(f"{base}{lang}/")]  # fmt: skip
        head = text[: urls[0].start]
        (site / lang / "sitemap.xml").write_text(head + "".join(mine).rstrip() + "\n</urlset>\n", encoding="utf-8")


class PagesConfig(Config):
    # what PyTorch's documentation publishes, name -> "page#anchor" (tools/pytorch_inventory.py writes it);
    # without it, no API name is linked
    inventory = config_options.Optional(config_options.File(exists=True))
    reference = config_options.Type(str, default=REFERENCE)  # where the inventory's pages are
    # names the pages write that the inventory has no entry for, left unlinked on purpose: name -> why;
    # any other name missing from it is a warning
    unlinked = config_options.DictOfItems(config_options.Type(str), default={})


class PagesPlugin(BasePlugin[PagesConfig]):
    def __init__(self) -> None:
        super().__init__()
        self._builds = i18n.BuildState(lambda config: _Build())
        # under `mkdocs serve`: what on_page_content gave each page, by the page's path, with what it was given
        self._linked: dict[str, tuple[tuple[str, ...], str]] | None = None

    def on_startup(self, *, command: str, dirty: bool) -> None:
        """Under `mkdocs serve` this plugin lives from one rebuild to the next (MkDocs keeps a plugin that has
        this event), and a page whose content a rebuild hands it again, unchanged, gets the content it got."""
        self._linked = {} if command == "serve" else None

    def _fix(self, config: MkDocsConfig) -> str:
        root = Path(config.config_file_path).parent
        paths = (self.config.inventory or "", config.config_file_path)
        inventory, settings = (_relative(Path(path), root) or path for path in paths)
        return (
            f"({inventory}): fix the name, or add it to `unlinked` of the plugin examples-pages in {settings}, "
            "saying why, if the page means it"
        )

    def reference(self, name: str) -> str | None:
        """The reference URL of an API name, by this plugin's options (:func:`reference`); None without an
        inventory."""
        if self.config.inventory is None:
            return None
        return reference(name, read_inventory(self.config.inventory), self.config.unlinked, self.config.reference)

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        """The headings' links to themselves titled in the language of the build (static-i18n calls every
        plugin's `on_config` again for each language it builds)."""
        toc = config.mdx_configs.setdefault("toc", {})
        toc["permalink_title"] = PERMALINK.get(i18n.build_language(config), PERMALINK["en"])
        return config

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        self._builds.start(config)

    def on_build_error(self, *, error: Exception) -> None:
        self._builds.drop()

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        if "description" not in page.meta and (text := _first_paragraph(markdown)):
            page.meta["description"] = text
        root = Path(config.config_file_path).parent
        sources = [Path(config.docs_dir) / page.file.src_uri]
        examples = config.plugins.get("examples")
        # the engine's API (src/mkdocs_examples/docs/site.md: "The plugin's API for a site's own hooks")
        if examples is not None:
            sources += [examples.examples_dir / path for path in examples.examples_of(page.file.src_uri)]
        known = _dates(root, config, self._builds.now)
        dates = [d for source in sources if (d := known.get(_relative(source, root)))]
        if dates:
            # Material shows revision_date under the page; the sitemaps' <lastmod> is update_date (MkDocs
            # sets it to the day of the build, which would tell search engines every page changed that day)
            page.meta["revision_date"] = page.update_date = max(dates)
        return markdown

    @event_priority(-100)  # after every hook and plugin that sets a description (the notebook views set theirs)
    def on_page_context(
        self, context: TemplateContext, *, page: Page, config: MkDocsConfig, nav: Navigation
    ) -> TemplateContext:
        # Material writes the description into content="..." as it is: a quote in a page's first
        # paragraph would end the attribute and spill the rest into the page's <head>
        if isinstance(description := page.meta.get("description"), str):
            page.meta["description"] = escape(description, quote=True)
        return context

    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        # what the content is linked by (the config's paths only name where a warning's fix goes: a page that
        # warns is not kept)
        key = (html, str(self.config.inventory), self.config.reference, repr(sorted(self.config.unlinked.items())))
        if self._linked is not None and (kept := self._linked.get(page.file.src_uri)) and kept[0] == key:
            return kept[1]
        warned = []  # a page that warned of a name is linked again on each rebuild, so that it warns again

        def where(name: str) -> str:
            warned.append(name)
            return _where(page, config)(name)

        linked = self._linked_content(html, config, where)
        if self._linked is not None:
            if warned:
                self._linked.pop(page.file.src_uri, None)
            else:
                self._linked[page.file.src_uri] = (key, linked)
        return linked

    def _linked_content(self, html: str, config: MkDocsConfig, where: Callable[[str], str]) -> str:
        fix = functools.partial(self._fix, config)
        link = functools.partial(_link_name, where=where, resolve=self.reference, fix=fix)
        # the links, code blocks and headings of the content (no link goes inside one), outermost first: each holds
        # none of its own kind, and html_parse reads their start and end tags only
        held = sorted((e for tag in _NOT_LINKED for e in html_parse.find_all(html, tag)), key=lambda e: e.start)
        outermost: list[html_parse.Element] = []
        for element in held:
            if not outermost or element.start >= outermost[-1].end:
                outermost.append(element)
        starts = [element.start for element in outermost]

        def edit(code: html_parse.Element) -> str | None:
            at = bisect.bisect_left(starts, code.start) - 1
            holder = outermost[at] if at >= 0 and code.start < outermost[at].end else None
            if holder is None:
                return link(code) if code.start_tag == "<code>" else None
            return _focusable_code(code, holder) if holder.tag == "pre" else None

        return html_parse.rewrite(html, edit, html_parse.find_all(html, "code"))

    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        if not config.site_url:
            return output
        url = page.canonical_url or urljoin(config.site_url, page.url)
        links = html_parse.find_all(output, "link")  # in the page's <head>: the rest is not read
        return html_parse.rewrite(output, lambda element: _absolute_alternate(element, url), links)

    def on_post_template(self, output: str, *, template_name: str, config: MkDocsConfig) -> str:
        """Each language build writes the root 404.html: keep the default language's, set the others aside."""
        if template_name != "404.html":
            return output
        lang, default = i18n.build_language(config), i18n.default_language(config)
        base = urlsplit(config.site_url or "/").path.rstrip("/") + "/"
        homes = {code: base + i18n.prefix(config, code) for code in i18n.languages(config)}

        def home(element: html_parse.Element) -> str | None:
            # the language switch of a 404 leads home, not to the last page built
            if (code := element.attrs.get("hreflang")) not in homes or "href" not in element.attrs:
                return None
            href = homes[code]
            if config.site_url and element.tag == "link":  # absolute, as on every page (_absolute_alternate)
                href = urljoin(config.site_url, href)
            return html_parse.with_attribute(element, "href", href) + element.source[element.content : element.end]

        output = html_parse.rewrite(output, home)
        not_found = (self._builds.now or _Build()).not_found
        not_found[lang] = output
        return not_found.get(default, output)

    @event_priority(-200)  # after static-i18n has built every language
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        done = self._builds.finish(config)
        if done is None or i18n.static_i18n(config) is None:
            return
        site = Path(config.site_dir)
        for lang, output in done.not_found.items():
            if lang != i18n.default_language(config):
                (site / lang).mkdir(exist_ok=True)
                (site / lang / "404.html").write_text(output, encoding="utf-8")
        _split_sitemap(site, config)
