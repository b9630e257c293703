"""What readers expect of every page, in both languages (a MkDocs hook).

- A description (``<meta name="description">``) from the page's first paragraph, so each
  page and each language has its own, unless the page's front matter sets one.
- The date of the last commit that changed the page or an example it embeds (git; absent
  outside a git checkout), shown by Material under the page and given to search engines as the
  page's ``<lastmod>`` in the sitemaps (the day of the build for a page without one).
- API names in code font in prose (`torch.cat`, `nn.Linear`, `F.cross_entropy`,
  `Tensor.detach`) link to the page and anchor that PyTorch's documentation gives them, as
  listed in ``hooks/pytorch_api.json`` (written by tools/pytorch_inventory.py from PyTorch's
  docs sources): a name is looked up as written, then under the full name of the object in
  the installed torch (``torch.set_grad_enabled`` is documented as
  ``torch.autograd.grad_mode.set_grad_enabled``). A name with no entry is a warning (a strict
  build fails) unless it is left unlinked on purpose (``UNLINKED`` below, with why); values
  (dtypes, flags) without an entry are not linked. The answers are kept in
  ``.cache/api-names.json`` for that torch version and that inventory, so a warm build imports no torch.
- Every code block a tab stop, so that a keyboard reaches one that is wider than the screen
  (Material's `content.lazy` makes a block focusable only once it comes on screen), and the
  ``hreflang`` links to the page's twin as absolute addresses.
- A 404 page in each language, with links home, and a sitemap for each language.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
import json
import os
import re
import subprocess
from collections.abc import Callable
from html import escape
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urljoin, urlsplit

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

from mkdocs_examples.mkdocs import i18n

log = get_plugin_logger("pages")

REFERENCE = "https://docs.pytorch.org/docs/stable/"
# What PyTorch's documentation publishes: name -> "page#anchor" (tools/pytorch_inventory.py writes it)
INVENTORY = Path(__file__).with_name("pytorch_api.json")
SHORT = (("F.", "torch.nn.functional."), ("nn.", "torch.nn."), ("Tensor.", "torch.Tensor."), ("torch.", "torch."))
# Names the pages write that PyTorch's documentation (hooks/pytorch_api.json) has no entry for,
# left unlinked on purpose: name -> why. Any other name missing from it is a warning.
UNLINKED = {
    "torch.zero_grad": "shown on purpose as a mistake: it does not exist",
    "torch.AcceleratorError": "the exception type of CUDA errors (a RuntimeError), without an entry in the docs read",
    "torch.distributed.DistBackendError": "the exception type of a NCCL timeout that wait() raises (a RuntimeError), "
    "without an entry in the docs read",
    "torch.nn.pdist": "shown on purpose as a mistake: it does not exist",
    "torch.pdist": "an alias of torch.nn.functional.pdist (linked) with no entry of its own",
    "torch.relu": "torch.md lists no relu (torch.nn.functional.relu has the entry)",
    "torch.nn.init.xavier_uniform": "a deprecated alias, shown as such; nn.init.md documents xavier_uniform_",
    "torch.nn.init": "nn.init.md has no module entry (no automodule), only its functions",
    "torch.nn.utils.rnn": "nn.md declares the module only inside an HTML comment; its functions are linked",
    "torch.FloatTensor": "a legacy type: tensors.md names it in a table, without an entry",
    "torch.cuda.FloatTensor": "a legacy type: tensors.md names it in a table, without an entry",
    "torch.FloatTensor.abs_": "a legacy spelling the page shows as old; Tensor.abs_ is the entry",
    "torch.amp.GradScaler": "amp.md of the sources read documents only torch.cuda.amp/torch.cpu.amp.GradScaler",
    "torch.multiprocessing.start_processes": "multiprocessing.md documents spawn, not start_processes",
    "torch._dynamo.explain": "a private module: no entry in the pages read",
    "torch._dynamo.exc.Unsupported": "a private module: no entry in the pages read",
    "torch._inductor.list_mode_options": "a private module: no entry in the pages read",
    "torch._dynamo.reset": "a private module: no entry in the pages read",
    "torch._logging.set_logs": "a private module: no entry in the pages read (logging.md describes TORCH_LOGS)",
    "torch._inductor.aoti_compile_and_package": "a private module: no entry in the pages read",
    "torch.export": "export.md is not among the pages the inventory read (its source line)",
    "torch.export.export": "export.md is not among the pages the inventory read (its source line)",
    "torch.export.save": "export.md is not among the pages the inventory read (its source line)",
    "torch.export.load": "export.md is not among the pages the inventory read (its source line)",
    "torch.export.Dim": "export.md is not among the pages the inventory read (its source line)",
    "torch.jit.script": "jit.md is not among the pages the inventory read (its source line)",
    "torch.jit.trace": "jit.md is not among the pages the inventory read (its source line)",
    "torch.jit.save": "jit.md is not among the pages the inventory read (its source line)",
    "torch.jit.load": "jit.md is not among the pages the inventory read (its source line)",
    "torch.jit.annotate": "jit.md is not among the pages the inventory read (its source line)",
    "torch.jit.freeze": "jit.md is not among the pages the inventory read (its source line)",
    "torch.jit.interface": "jit.md is not among the pages the inventory read (its source line)",
    "torch.fx": "fx.md is not among the pages the inventory read (its source line)",
    "torch.fx.GraphModule": "fx.md is not among the pages the inventory read (its source line)",
    "torch.func": "func.rst is not among the pages the inventory read (its source line)",
}
_CODE = re.compile(r"<code>((?:torch|nn|F|Tensor)\.[A-Za-z_][\w.]*)(\(\))?</code>")
_SKIP = re.compile(r"<(/?)(a|pre|h[1-6])\b[^>]*>")


class _Build:
    """What one build gathers across its languages: a new one when a build starts (`mkdocs serve` rebuilds)."""

    def __init__(self) -> None:
        self.dates: dict[str, str] | None = None  # path relative to mkdocs.yml: date of its last commit
        self.not_found: dict[str, str] = {}  # language: its 404 page
        self.names: _Names | None = None  # the API names resolved so far, read from the cache on first use


_build = _Build()


def on_pre_build(*, config: MkDocsConfig) -> None:
    global _build
    if not i18n.is_nested_build(config):  # static-i18n builds the other languages inside the first build
        _build = _Build()


def on_build_error(*, error: Exception) -> None:
    global _build
    _build = _Build()  # a failed build never reaches on_post_build: nothing of it reaches the next one


# --- descriptions and dates -----------------------------------------------------------


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    if "description" not in page.meta and (text := _first_paragraph(markdown)):
        page.meta["description"] = text
    root = Path(config.config_file_path).parent
    sources = [Path(config.docs_dir) / page.file.src_uri]
    examples = config.plugins.get("examples")
    # the engine's API (src/mkdocs_examples/README.md: "The plugin's API for a site's own hooks")
    if examples is not None:
        sources += [examples.examples_dir / path for path in examples.examples_of(page.file.src_uri)]
    known = _dates(root, config)
    dates = [d for source in sources if (d := known.get(_relative(source, root)))]
    if dates:
        # Material shows revision_date under the page; the sitemaps' <lastmod> is update_date (MkDocs
        # sets it to the day of the build, which would tell search engines every page changed that day)
        page.meta["revision_date"] = page.update_date = max(dates)
    return markdown


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
        text = re.sub(r"(?<=[\u4e00-\u9fff，。：；、（）]) (?=[\u4e00-\u9fff，。：；、（）])", "", text)
        if len(text) > 160:  # at the end of a sentence, or of a word
            cut = max(text.rfind("。", 0, 160), text.rfind(". ", 0, 160))
            text = text[: cut + 1] if cut > 60 else text[:157].rsplit(" ", 1)[0] + "…"
        return text
    return None


@event_priority(-100)  # after every hook and plugin that sets a description (the notebook views set theirs)
def on_page_context(context: dict[str, Any], *, page: Page, config: MkDocsConfig, nav: Navigation) -> dict[str, Any]:
    # Material writes the description into content="..." as it is: a quote in a page's first
    # paragraph would end the attribute and spill the rest into the page's <head>
    if isinstance(description := page.meta.get("description"), str):
        page.meta["description"] = escape(description, quote=True)
    return context


def _dates(root: Path, config: MkDocsConfig) -> dict[str, str]:
    """Path (relative to ``root``, the folder of mkdocs.yml) -> date of the last commit that changed it.

    Read from git once per build, so that `mkdocs serve` shows a commit made while it runs.
    """
    if _build.dates is None:
        _build.dates = {}
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
            elif line and line not in _build.dates:
                _build.dates[line] = date  # newest first: the first date seen is the last change
    return _build.dates


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return ""


# --- links to PyTorch's reference -------------------------------------------------------


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    parts, depth, last = [], 0, 0
    where = _where(page, config)
    if _build.names is None:
        _build.names = _Names(Path(config.config_file_path).parent / ".cache" / "api-names.json")
    names = _build.names
    for tag in _SKIP.finditer(html):  # no links inside links, code blocks or headings
        parts.append(_link_names(html[last : tag.start()], where, names) if depth == 0 else html[last : tag.start()])
        parts.append(tag[0])
        depth = max(0, depth + (-1 if tag[1] else 1))
        last = tag.end()
    parts.append(_link_names(html[last:], where, names) if depth == 0 else html[last:])
    return "".join(parts)


def _where(page: Page, config: MkDocsConfig) -> Callable[[str], str]:
    """Where a page names an API: ``docs/en/x.md:12`` (the first line of its source that holds the name)."""
    shown = f"{Path(config.docs_dir).name}/{page.file.src_uri}"

    def where(name: str) -> str:
        source = page.markdown if page.file.abs_src_path is None else Path(page.file.abs_src_path).read_text("utf-8")
        lines = (source or "").splitlines()
        number = next((i for i, line in enumerate(lines, start=1) if f"`{name}" in line), None)
        return f"{shown}:{number}" if number else shown

    return where


def _link_names(html: str, where: Callable[[str], str], names: _Names) -> str:
    def link(match: re.Match) -> str:
        url = names.reference(match[1])
        if url is None:
            return match[0]
        if url == "":
            log.warning(
                f"{where(match[1])}: `{match[1]}` is not in PyTorch's documentation (hooks/pytorch_api.json): "
                "fix the name, or add it to UNLINKED in hooks/pages.py, saying why, if the page means it"
            )
            return match[0]
        return f'<a href="{url}" class="mx-api" title="PyTorch reference">{match[0]}</a>'

    return _CODE.sub(link, html)


class _Names:
    """What :func:`reference` answered for each name, kept in ``.cache/api-names.json`` per torch version.

    Resolving a name imports torch (more than a second); a build whose pages name nothing new
    (every warm build) reads the answers of an earlier one instead. They are only kept for the
    exact torch that gave them, this file and the inventory (their hash), so a new torch, a
    changed rule or a new inventory resolves every name afresh.
    """

    RULES = hashlib.sha256(b"".join(p.read_bytes() for p in (Path(__file__), INVENTORY) if p.exists())).hexdigest()[:16]

    def __init__(self, file: Path) -> None:
        self.file, self.torch = file, metadata.version("torch")
        self.known: dict[str, str | None] = {}
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
            fresh = data.get("torch") == self.torch and data.get("rules") == self.RULES
            if fresh and isinstance(data.get("names"), dict):
                self.known = {k: v for k, v in data["names"].items() if isinstance(v, str) or v is None}
        except (OSError, ValueError, AttributeError):
            pass  # no file yet, or not one of ours: resolve again
        self.new = False

    def reference(self, name: str) -> str | None:
        if name not in self.known:
            self.known[name], self.new = reference(name), True
        return self.known[name]

    def save(self) -> None:
        if not self.new:
            return
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            data = json.dumps({"torch": self.torch, "rules": self.RULES, "names": self.known}, indent=1, sort_keys=True)
            temporary = self.file.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(data, encoding="utf-8")
            os.replace(temporary, self.file)
        except OSError as error:  # a cache that cannot be written costs time, nothing else
            log.info(f"API names are not cached: cannot write {self.file} ({error.strerror or error})")


def reference(name: str, inventory: dict[str, str] | None = None) -> str | None:
    """The reference URL of an API name; "" if PyTorch's documentation has no entry for it; None if not linked.

    A name is looked up as written (short forms expanded), then under the full name of the object it
    is in the installed torch (``torch.set_grad_enabled`` is documented as
    ``torch.autograd.grad_mode.set_grad_enabled``). Values (dtypes, flags) that the documentation
    does not index are not linked.
    """
    names = _inventory() if inventory is None else inventory
    name = name.removesuffix("()")
    full = next((long + name[len(short) :] for short, long in SHORT if name.startswith(short)), None)
    if full is None or full in UNLINKED:
        return None
    if full in names:
        return REFERENCE + names[full]
    found = _resolve(full)
    own = f"{getattr(found, '__module__', '')}.{getattr(found, '__qualname__', '')}"
    if own in names:
        return REFERENCE + names[own]
    if found is not None and not (inspect.ismodule(found) or callable(found) or inspect.isclass(found)):
        return None  # a value (torch.float32, a config flag): no entry of its own
    return ""


@functools.cache
def _inventory() -> dict[str, str]:
    """hooks/pytorch_api.json's names, read once per process; a clear error if it is missing or not one."""
    try:
        names = json.loads(INVENTORY.read_text(encoding="utf-8"))["names"]
        if not isinstance(names, dict) or not all(isinstance(v, str) for v in names.values()):
            raise ValueError('"names" is not an object of strings')
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise PluginError(
            f"{INVENTORY}: not an inventory of PyTorch's API names ({error}); "
            "write it again with tools/pytorch_inventory.py (CONTRIBUTING.md)"
        ) from error
    return names


def _resolve(full: str) -> Any:
    parts = full.split(".")
    value = _torch()
    for i, part in enumerate(parts[1:], start=1):
        try:
            value = getattr(value, part)
        except AttributeError:
            try:  # a submodule not imported by `import torch`
                value = importlib.import_module(".".join(parts[: i + 1]))
            except ImportError:
                return None
    return value


def _torch() -> ModuleType:
    return importlib.import_module("torch")


# --- the other language of a page, for search engines -------------------------------------

_ALTERNATE = re.compile(r'(<link rel="alternate" href=")([^"]*)(" hreflang=")')


def _absolute_alternates(output: str, url: str) -> str:
    """The page's ``<link rel="alternate" hreflang>`` with absolute addresses, as search engines
    read them (Material writes them relative to the page); ``url``: the page's own address."""
    return _ALTERNATE.sub(lambda m: f"{m[1]}{urljoin(url, m[2])}{m[3]}", output)


# --- code blocks a keyboard reaches -------------------------------------------------------

_CODE_BLOCK = re.compile(r"(<pre>(?:<span></span>)?)<code>")


def _focusable_code(output: str) -> str:
    """Every code block a tab stop from the start, so that a keyboard reader can scroll one that is wider
    than the screen. Material makes such a block focusable when it mounts it, and with `content.lazy`
    (mkdocs.yml: a block is mounted, measured and given its copy button only once it comes on screen,
    not all at once as the page starts) a reader tabbing down the page would pass over the blocks below.
    Material takes the tab stop away again from a block it mounts that fits."""
    return _CODE_BLOCK.sub(r'\1<code tabindex="0">', output)


def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str:
    output = _focusable_code(output)
    if not config.site_url:
        return output
    return _absolute_alternates(output, page.canonical_url or urljoin(config.site_url, page.url))


# --- 404 pages and sitemaps per language ------------------------------------------------


def on_post_template(output: str, *, template_name: str, config: MkDocsConfig) -> str:
    """Each language build writes the root 404.html: keep the default language's, set the others aside."""
    if template_name != "404.html":
        return output
    lang, default = i18n.build_language(config), i18n.default_language(config)
    base = urlsplit(config.site_url or "/").path.rstrip("/") + "/"
    homes = {code: base + i18n.prefix(config, code) for code in i18n.languages(config)}
    for code, home in homes.items():  # the language switch of a 404 leads home, not to the last page built
        output = re.sub(rf'href="[^"]*"(?= hreflang="{code}")', f'href="{home}"', output)
    if config.site_url:
        output = _absolute_alternates(output, config.site_url)
    _build.not_found[lang] = output
    return _build.not_found.get(default, output)


@event_priority(-200)  # after static-i18n has built every language
def on_post_build(*, config: MkDocsConfig) -> None:
    global _build
    if i18n.is_nested_build(config):
        return
    done, _build = _build, _Build()
    if done.names is not None:
        done.names.save()
    if i18n.static_i18n(config) is None:
        return
    site = Path(config.site_dir)
    for lang, output in done.not_found.items():
        if lang != i18n.default_language(config):
            (site / lang).mkdir(exist_ok=True)
            (site / lang / "404.html").write_text(output, encoding="utf-8")
    _split_sitemap(site, config)


def _split_sitemap(site: Path, config: MkDocsConfig) -> None:
    """Next to the sitemap of every language, one per language at its root (Material's language switch reads it)."""
    sitemap = site / "sitemap.xml"
    if not sitemap.exists():
        return
    text = sitemap.read_text(encoding="utf-8")
    head, _, rest = text.partition("<url>")
    urls = ["<url>" + u for u in rest.split("<url>")]
    urls[-1] = urls[-1].replace("</urlset>", "")
    base = config.site_url or ""
    for lang in i18n.languages(config)[1:]:  # every language but the default one
        mine = [u for u in urls if f"<loc>{base}{lang}/" in u]
        (site / lang / "sitemap.xml").write_text(head + "".join(mine).rstrip() + "\n</urlset>\n", encoding="utf-8")
