"""What readers expect of every page, in both languages (a MkDocs hook).

- A description (``<meta name="description">``) from the page's first paragraph, so each
  page and each language has its own, unless the page's front matter sets one.
- The date of the last commit that changed the page or an example it embeds (git; absent
  outside a git checkout), shown by Material under the page.
- API names in code font in prose (`torch.cat`, `nn.Linear`, `F.cross_entropy`,
  `Tensor.detach`) link to PyTorch's reference. Each name is resolved against the installed
  torch: one that does not exist is a warning (a strict build fails), unless the page
  shows on purpose that it does not exist (``ABSENT`` below).
- A 404 page in each language, with links home, and a sitemap for each language.
"""

from __future__ import annotations

import importlib
import inspect
import re
import subprocess
from html import escape
from pathlib import Path
from urllib.parse import urlsplit

from mkdocs.plugins import event_priority, get_plugin_logger

log = get_plugin_logger("pages")

REFERENCE = "https://docs.pytorch.org/docs/stable/"
# Names that pages show on purpose as mistakes: they do not exist, and the page says so
ABSENT = {"torch.zero_grad", "torch.nn.pdist"}
SHORT = (("F.", "torch.nn.functional."), ("nn.", "torch.nn."), ("Tensor.", "torch.Tensor."), ("torch.", "torch."))
# Modules whose reference is one page with an anchor per name, not a page per name
ONE_PAGE = {"torch.utils.data": "data.html", "torch.nn.init": "nn.init.html"}
_CODE = re.compile(r"<code>((?:torch|nn|F|Tensor)\.[A-Za-z_][\w.]*)(\(\))?</code>")
_SKIP = re.compile(r"<(/?)(a|pre|h[1-6])\b[^>]*>")
_EXAMPLE = re.compile(r"^\s*/// example \| *([^#\s]+)", re.MULTILINE)

_state: dict = {"dates": None, "404": {}, "depth": 0}


# --- descriptions and dates -----------------------------------------------------------


def on_page_markdown(markdown, *, page, config, files):
    if "description" not in page.meta and (text := _first_paragraph(markdown)):
        page.meta["description"] = text
    root = Path(config.config_file_path).parent
    sources = [Path(config.docs_dir) / page.file.src_uri]
    sources += [root / "examples" / path for path in _EXAMPLE.findall(markdown)]
    dates = [d for source in sources if (d := _dates(root).get(_relative(source, root)))]
    if dates:
        page.meta["revision_date"] = max(dates)
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


@event_priority(-100)  # after every hook that sets a description (the notebook views set theirs)
def on_page_context(context, *, page, config, nav):
    # Material writes the description into content="..." as it is: a quote in a page's first
    # paragraph would end the attribute and spill the rest into the page's <head>
    if isinstance(description := page.meta.get("description"), str):
        page.meta["description"] = escape(description, quote=True)
    return context


def _dates(root: Path) -> dict[str, str]:
    """Path (relative to the repository) -> date of the last commit that changed it."""
    if _state["dates"] is None:
        _state["dates"] = {}
        try:
            out = subprocess.run(
                ["git", "log", "--format=%x00%cs", "--name-only", "--", "docs", "examples"],
                cwd=root, capture_output=True, text=True, check=True, timeout=60,
            ).stdout  # fmt: skip
        except (OSError, subprocess.SubprocessError):
            return {}  # not a git checkout: no dates
        date = ""
        for line in out.splitlines():
            if line.startswith("\0"):
                date = line[1:]
            elif line and line not in _state["dates"]:
                _state["dates"][line] = date  # newest first: the first date seen is the last change
    return _state["dates"]


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return ""


# --- links to PyTorch's reference -------------------------------------------------------


def on_page_content(html, *, page, config, files):
    parts, depth, last = [], 0, 0
    for tag in _SKIP.finditer(html):  # no links inside links, code blocks or headings
        parts.append(_link_names(html[last : tag.start()], page) if depth == 0 else html[last : tag.start()])
        parts.append(tag[0])
        depth = max(0, depth + (-1 if tag[1] else 1))
        last = tag.end()
    parts.append(_link_names(html[last:], page) if depth == 0 else html[last:])
    return "".join(parts)


def _link_names(html: str, page) -> str:
    def link(match: re.Match) -> str:
        url = reference(match[1])
        if url is None:
            return match[0]
        if url == "":
            log.warning(f"{page.file.src_uri}: `{match[1]}` is not in torch {_torch().__version__}: was it removed?")
            return match[0]
        return f'<a href="{url}" class="mx-api" title="PyTorch reference">{match[0]}</a>'

    return _CODE.sub(link, html)


def reference(name: str) -> str | None:
    """The reference URL of an API name; "" if torch has no such name; None if it is not linked."""
    name = name.removesuffix("()")
    full = next((long + name[len(short) :] for short, long in SHORT if name.startswith(short)), None)
    if full is None or full in ABSENT:
        return None
    found = _resolve(full)
    if found is None:
        return ""
    if inspect.ismodule(found) or not (callable(found) or inspect.isclass(found)):
        return None  # modules, dtypes and other values: no page of their own
    for module, page in ONE_PAGE.items():
        if full.startswith(module + "."):
            return f"{REFERENCE}{page}#{full}"
    return f"{REFERENCE}generated/{full}.html"


def _resolve(full: str):
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


def _torch():
    return importlib.import_module("torch")


# --- 404 pages and sitemaps per language ------------------------------------------------


def on_post_template(output, *, template_name, config):
    """Each language build writes the root 404.html: keep the default language's, set the others aside."""
    if template_name != "404.html":
        return output
    lang = config.theme.get("language", "en")
    base = urlsplit(config.site_url or "/").path.rstrip("/") + "/"
    i18n = config.plugins.get("i18n")
    default = i18n.default_language if i18n else lang
    homes = {code: base + ("" if code == default else f"{code}/") for code in _languages(config)}
    for code, home in homes.items():  # the language switch of a 404 leads home, not to the last page built
        output = re.sub(rf'href="[^"]*"(?= hreflang="{code}")', f'href="{home}"', output)
    _state["404"][lang] = output
    return _state["404"].get(default, output)


def on_pre_build(*, config):
    _state["depth"] += 1  # static-i18n builds the other languages inside the first build


def on_build_error(*, error):
    _state["depth"] = 0  # a failed build never reaches on_post_build: the next one starts afresh


@event_priority(-200)  # after static-i18n has built every language
def on_post_build(*, config):
    _state["depth"] -= 1
    i18n = config.plugins.get("i18n")
    if i18n is None or _state["depth"] > 0:
        return
    site = Path(config.site_dir)
    for lang, output in _state["404"].items():
        if lang != i18n.default_language:
            (site / lang).mkdir(exist_ok=True)
            (site / lang / "404.html").write_text(output, encoding="utf-8")
    _split_sitemap(site, config)


def _languages(config) -> list[str]:
    i18n = config.plugins.get("i18n")
    return list(i18n.build_languages) if i18n else [config.theme.get("language", "en")]


def _split_sitemap(site: Path, config) -> None:
    """Next to the sitemap of every language, one per language at its root (Material's language switch reads it)."""
    sitemap = site / "sitemap.xml"
    if not sitemap.exists():
        return
    text = sitemap.read_text(encoding="utf-8")
    head, _, rest = text.partition("<url>")
    urls = ["<url>" + u for u in rest.split("<url>")]
    urls[-1] = urls[-1].replace("</urlset>", "")
    base = config.site_url or ""
    i18n = config.plugins.get("i18n")
    for lang in _languages(config):
        if lang == i18n.default_language:
            continue
        mine = [u for u in urls if f"<loc>{base}{lang}/" in u]
        (site / lang / "sitemap.xml").write_text(head + "".join(mine).rstrip() + "\n</urlset>\n", encoding="utf-8")
