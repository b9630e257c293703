"""Search per language, Chinese queries typed without spaces, pasted error lines.

The MkDocs plugin `examples-search` (listed in `plugins:` after Material's search plugin and
mkdocs-static-i18n), around both:

- mkdocs-static-i18n merges every language into one `search/search_index.json` (its issue #271).
  We keep each language's entries as its own build ends and write one index per language:
  `search/search_index.json` for the default language, `<lang>/search/search_index.json` for the
  others, whose pages (their 404 page too) get their language's folder as the search `base` (so
  they load only their index, and its locations are relative to that folder).
- The index holds what readers search for: prose, the names the code uses, error and warning
  lines; not the code itself, printed values, provenance lines or traceback frames. It is written
  as UTF-8, not \\uXXXX. (A page and its index: at most 125 KB as GitHub Pages sends them, gzipped.)
- Terms readers type (the YAML file of the option ``terms``) go into jieba's dictionary and onto their
  page's index entry (or a section's, named by the page's path, ``#`` and its anchor): a term that is
  one word of the index as a tag (freeze, 梯度累积); a term the index would cut into words (NaN loss,
  多GPU) as a phrase, matched whole by the worker, its words weighing less than a title's (the field
  `phrases`); a name written as code (weights_only) as a name, matched whole only.
- A table's rows are lines of the index (the glossary's), and the names a block of code uses are
  marked: a result's teaser shows sentences of the page, not a run of cells or names.
- A section's index page, which lists every page of its section, weighs less (the option ``section_boost``):
  a page comes before its section's index for its own subject.
- A page's entries are kept in `.cache/search-entries.json`, keyed by everything they are made
  of (what the index sees of the page, its URL, title, table of contents and metadata, the
  terms, Material's and jieba's versions): a build in which no page changed loads no jieba
  dictionary and parses no page for the index.
- Groups of words that mean one thing to readers (terms.yml's `synonyms`: GPU, 显卡 and CUDA) go into
  the index's config: the worker indexes and searches each group as one word (its first), so that a page
  full of CUDA does not answer every question about the GPU as if it held two of the question's words.
- The browser rewrites a query before Material's worker parses it (our worker: Material's, with
  its rewrite of Han characters replaced, see search_assets/worker.js): Latin letters and Han
  characters apart, Chinese runs segmented against the index's own words, stop words left out, no
  textual wildcard of ours, a name typed whole (num_workers) found only where all its pieces are (and
  counted as found where it is whole); a pasted error line (one that names its type, or quotes a line of the index's
  errors), or a part of one, ranks first the page with a section headed by that error (the errors pages);
  a page with a phrase of terms.yml that the query holds comes first;
  a Chinese tag of the query made of words of the index is searched with its words too (显存不够: 显存 + 不够);
  a result's title links to the section of its page that answers the query;
  a result and the page it opens (the words its link names, ``?h=``) mark the query's content words, whole
  (Material's ``search.highlight``, which marks each term anywhere in a word, is off); each result's
  text is cut to the lines its teaser shows, from the sentence of the first word found, without the
  index's zero-width spaces and the code's names; its "Missing" line names only words the reader
  typed; it searches when the reader pastes with the mouse, and loads the index when the browser is idle
  after the page's load, or sooner when the reader goes to the search (a focus, a pointer over the box),
  not while the page loads (search_assets/input.js); once the index is built, the worker warms the path
  of a query, so that the reader's first keystroke does not pay for it.
"""

from __future__ import annotations

import hashlib
import html
import json
import keyword
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils.templates import TemplateContext

from mkdocs_examples import atomic, cjk, html_parse, yaml_files
from mkdocs_examples.environment import package_version
from mkdocs_examples.mkdocs import i18n, upstream
from mkdocs_examples.render.page import OTHER

ASSETS = Path(__file__).parent / "search_assets"
WORKERS = "assets/javascripts/workers"
INPUT = "assets/javascripts/"
BUNDLE = "assets/javascripts/bundle."  # Material's script, under the site's root

# Chinese punctuation splits words like the configured separator does, so the index needs no
# zero-width space next to it
CJK_PUNCTUATION = "，。、；：？！“”‘’（）《》【】…—"
# A section's index page lists every page of its section in a line: its score is multiplied by this (the
# default of the option section_boost), so that a page comes before its section's index for the page's own
# subject (张量拼接)
SECTION_BOOST = 0.3
# The index keeps jieba's words apart with U+007F (one byte in UTF-8, which JSON leaves as it is) in place
# of Material's zero-width space (three): about 14 KB less of the Chinese index as sent (gzipped)
SEGMENT_BREAK = "\x7f"
# Where Latin letters or digits meet Han characters: the index separates them (jieba does in the text,
# _apart in the terms), and so does the search worker in the query (`KL散度` is `KL` and `散度`)
_LATIN_HAN = re.compile(rf"(?<=[A-Za-z0-9_])(?=[{cjk.HAN}])|(?<=[{cjk.HAN}])(?=[A-Za-z0-9_])")


@dataclass
class _Build:
    """What one build with search gathers across its languages; a new one when a build starts."""

    terms: dict[str, Any]  # the file of the option terms
    source: str  # that file, as a message names it
    boost: float  # the option section_boost
    worker: tuple[str, str]  # our search worker: file name, text
    input: tuple[str, str]  # search_assets/input.js: file name, text
    entries: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # language: its index entries
    cache: Path | None = None  # the file of a page's entries, by key (below)
    known: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # key: the entries of a page, as read
    used: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # key: entries of this build's pages
    sections: set[str] = field(default_factory=set)  # the URLs of the sections' index pages
    segmenting: bool = False  # jieba has its dictionary and the terms




def _search(config: MkDocsConfig) -> BasePlugin | None:
    """Material's search plugin, unless it is disabled (examples-serve disables it for its preview)."""
    for name in ("material/search", "search"):
        if name in config.plugins:
            plugin = config.plugins[name]
            return plugin if plugin.config.get("enabled", True) else None
    return None


def _patched_worker() -> tuple[str, str]:
    """Our worker: Material's, with its segmentation of Han characters replaced by ours (ptQuery, which
    rewrites the whole query), the field phrases, a group of synonyms as one word of the index (ptOneWord,
    a step of the pipeline that indexes the pages, adds its group's word beside each word of a group), and a
    result's share of the query's words counting a name typed whole (set_epoch) only where the entry holds it
    whole (ptShare)."""
    source = upstream.material_search_worker_with("ptQuery", "ptOneWord", ["phrases"], "ptShare")
    # our part without its lines of comment: Material's worker is fetched as every page loads
    ours = re.sub(r"^\s*//.*\n", "", (ASSETS / "worker.js").read_text(encoding="utf-8"), flags=re.M)
    return _hashed("search.{}.min.js", f"{ours}\n{source}")


def _hashed(pattern: str, text: str) -> tuple[str, str]:
    """A file name with a hash of the text, so that browsers never keep a stale copy."""
    return pattern.format(hashlib.sha256(text.encode()).hexdigest()[:8]), text


def _terms(path: str | None) -> dict[str, Any]:
    return (yaml_files.load(Path(path)) or {}) if path else {}


def _start(config: MkDocsConfig, terms: str | None, boost: float) -> _Build | None:
    """What a build with search keeps across its languages; None without search. ``terms``: the terms file."""
    if _search(config) is None:
        return None
    root = Path(config.config_file_path).parent
    source = "terms" if terms is None else _relative(Path(terms), root)
    build = _Build(
        terms=_terms(terms),
        source=source,
        boost=boost,
        worker=_patched_worker(),
        input=_hashed("search-input.{}.js", (ASSETS / "input.js").read_text(encoding="utf-8")),
        cache=Path(config.config_file_path).parent / ".cache" / "search-entries.json",
    )
    try:
        data = json.loads(build.cache.read_text(encoding="utf-8"))  # type: ignore[union-attr]
        build.known = {k: v for k, v in data.items() if isinstance(v, list)} if isinstance(data, dict) else {}
    except (OSError, ValueError):
        pass  # none yet: every page is indexed afresh
    return build


def _segmenting(build: _Build) -> None:
    """jieba's dictionary, with the terms readers type: loaded (about a second) when a page is first indexed."""
    if build.segmenting:
        return
    import jieba  # type: ignore[import-untyped]  # Material's search plugin segments Chinese text with it

    for lang in build.terms.values():
        words = list(lang.get("words") or []) + [word for group in lang.get("synonyms") or [] for word in group]
        for page_terms in (lang.get("pages") or {}).values():
            words.extend(page_terms)
        for word in words:
            for part in _apart(str(word)).split(SEGMENT_BREAK):  # jieba keeps 多GPU whole: its Han part only
                if re.search(f"[{cjk.HAN}]", part):
                    jieba.add_word(part)
    build.segmenting = True


def _apart(text: str) -> str:
    """``text`` with a separator of the index's words where Latin letters meet Han ones."""
    return _LATIN_HAN.sub(SEGMENT_BREAK, text)


# -- what the index holds --------------------------------------------------------------------------

_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_WORD_BREAK = re.compile(r"[._]+")
# a code's words that tell no subject: Python's keywords and builtins, and __name__ (every introspection)
_PLAIN = set(keyword.kwlist) | {
    "print", "range", "len", "list", "dict", "tuple", "str", "int", "float", "self", "__name__",
}
_ERRORISH = re.compile(r"Error|Exception|Warning", re.I)
# Where a traceback's frame names its file (a Python traceback's, or one a logger prints after its prefix)
_FRAME = re.compile(r'File "[^"\n]*", line \d+')
# What places a line rather than says something: the prefix torch's logger writes (its time and process as the
# engine shows them, its source line, a compiled frame's id), and the file and line a warning comes from. The
# same line logged from another source line (another release) is then the same line.
# (``[<]time> [<]pid>``: the stand-ins execute/child/clean.py writes for a log line's time and process; text, no tags)
_PLACE = re.compile(r"^(?:[DIWEF][<]time> [<]pid> \S+:\d+\] (?:\[[\d/]+\] )?|\S+\.py:\d+: (?=\w+Warning: ))")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _label(tag: str, attrs: dict[str, str | None]) -> bool:
    """A code block's title: a file name, or an output's label ("Output", "Exception")."""
    return tag == "span" and attrs.get("class") == "filename"


def _excluded(tag: str, attrs: dict[str, str | None]) -> bool:
    return "data-search-exclude" in attrs  # as Material's search plugin reads it


def _excluded_paragraph(element: html_parse.Element) -> bool:
    """A paragraph that holds only what search leaves out (an output's label)."""
    if element.tag != "p" or not element.children:
        return False
    shown = element.text(_excluded)
    return all(_excluded(child.tag, child.attrs) for child in element.children) and not shown.strip()


def _names(code: html_parse.Element, seen: set[str]) -> str:
    """The names a block of code uses, those that bring the section words it has not indexed yet.

    The index cuts ``x.requires_grad`` into words at ``.`` and ``_`` (the separator in
    mkdocs.yml): once ``requires_grad`` is there, ``y.requires_grad`` finds nothing more.
    """
    text = code.text(_label)
    text = re.sub(r"#.*|'[^'\n]*'|\"[^\"\n]*\"", " ", text)  # comments and strings
    names = []
    for name in dict.fromkeys(_NAME.findall(text)):
        words = {w.lower() for w in _WORD_BREAK.split(name) if len(w) > 1}
        if len(name) > 1 and name not in _PLAIN and words - seen:
            names.append(name)
            seen.update(words)
    return f"<p><code>{' '.join(names)}</code></p>" if names else ""


def _row(row: html_parse.Element) -> str:
    """A row of a table as a line of the index (the glossary's: ``tensor · 张量 · torch.Tensor · Creating
    tensors``); Material's indexer runs a table's cells together into one paragraph, which a result's
    teaser showed as a run of words with no row in sight."""
    cells = [cell.inner.strip() for cell in row.children if cell.tag in ("td", "th")]
    return f"<p>{' · '.join(cell for cell in cells if cell)}</p>"


def _for_index(content: str) -> str:
    """The page as the index sees it: prose, the names its code uses, errors and warnings, a table's rows
    as lines.

    Left out: file names and "Output" labels, printed values (unless an error or a warning: then its lines
    but its traceback's frames, each once a section, _error_lines), the code
    itself (its names stay, once per section), a table's header, and the title of a note of what other
    environments print (render/page.py: OTHER): their names ("torch 2.4\u20132.12 · CUDA builds without a GPU
    print") would bring every page with one to a query about GPUs. The label under every output
    (its provenance) is marked ``data-search-exclude`` where the engine writes it: Material leaves out what
    such an element holds, and here goes the paragraph that holds nothing else (Material's indexer would
    keep it, empty).
    """
    found = html_parse.elements(content)
    seen: set[str] = set()  # the words of the section's code so far: each is indexed once per section
    printed: set[str] = set()  # the lines of the section's errors and warnings so far: each once too
    noted: set[str] = set()  # the lines of the page's notes of other environments so far: each once a page
    notes = [(e.start, e.end) for e in found if e.tag == "details" and e.has_class(OTHER)]

    def edit(element: html_parse.Element) -> str | None:
        if element.tag in _HEADINGS:  # a new section: a new entry of the index
            seen.clear()
            printed.clear()
            return None
        if element.tag == "thead" or _label(element.tag, element.attrs) or _excluded_paragraph(element):
            return ""
        if element.tag == "summary" and any(start < element.start < end for start, end in notes):
            return ""
        if element.tag == "tr" and element.start_tag == "<tr>":
            return _row(element)
        if element.tag != "div" or not element.has_class("highlight"):
            return None
        if element.has_class("language-python"):
            return _names(element, seen)
        # what a cell printed (under its "Output" label); a text block written in the page has no label
        label = element.children[0] if element.children else None
        labelled = label is not None and label.start == element.content and _label(label.tag, label.attrs)
        if element.has_class("language-text") and labelled:
            text = element.text(_label)
            if not _ERRORISH.search(text):
                return ""
            in_note = any(start < element.start < end for start, end in notes)  # another release's, device's
            return _error_lines(text, printed, noted if in_note else set())
        return None

    return html_parse.rewrite(content, edit, found)


def _error_lines(text: str, printed: set[str], noted: set[str]) -> str:
    """An output that holds an error or a warning, as the index sees it: its lines but the traceback's frames and
    those ``printed`` holds (the section's outputs held them: every release's note prints the same error).

    A frame is the line that names its file and the lines under it indented further (its source, the carets);
    a logger's lines keep their prefix, which the frame's indentation follows. A long log of frames (torch's
    "Error while creating guard") would otherwise bring its section to every query of the words in its paths.
    A kept line goes without what places it (_PLACE): logged from another line of torch, it is the same line.
    A line of a note of what other environments print (``noted``: the page's notes' so far; an empty set for the
    page's own outputs) is kept once a page: torch
    2.4's warning of ``torch.load`` is printed by every cell that loads a file there, and one section of the
    page is enough to bring the page to a reader who pastes it."""
    kept, frame = [], None
    for line in text.splitlines():
        if frame is not None and line.startswith(frame) and line[len(frame) : len(frame) + 1].isspace():
            continue
        found = _FRAME.search(line)
        frame = line[: found.start()] if found else None
        line = _PLACE.sub("", line)
        if not found and line.strip() and line not in printed and line not in noted:
            printed.add(line)
            noted.add(line)
            kept.append(line)
    shown = html.escape("\n".join(kept), quote=False)
    return f"<pre>{shown}</pre>" if kept else ""


def _key(page: Page, seen: str, terms: dict[str, Any]) -> str:
    """What a page's index entries are made of."""
    meta = {k: page.meta.get(k) for k in ("title", "tags", "search")}
    toc = [[item.id, item.title, item.level, [c.id for c in item.children]] for item in page.toc]
    versions = [package_version("mkdocs-material"), package_version("jieba")]
    parts = [versions, terms, page.url, str(page.title), meta, toc, seen]
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False, sort_keys=True, default=str).encode()).hexdigest()


# -- one index per language -----------------------------------------------------------------------

_FRAMES = re.compile(r"Traceback \(most recent call last\):\n(?:(?:  .*|\s*\^+\s*)\n)*")
# a frame quoted inside a message, with its source and carets (TorchScript's errors point into the example)
_QUOTED_FRAMES = re.compile(r'^  File ".*\n(?:(?: {4}.*| *)\n)*', re.MULTILINE)
_ZWSP_NEEDLESS = re.compile(rf"\u200b+(?=[\s<{CJK_PUNCTUATION}]|$)|(?<=[\s>{CJK_PUNCTUATION}])\u200b+|^\u200b+")


def _slim(text: str) -> str:
    text = _QUOTED_FRAMES.sub("", _FRAMES.sub("", text))  # the error line stays; the frames name our example files
    return _ZWSP_NEEDLESS.sub("", text).replace("\u200b", SEGMENT_BREAK)


def _write_index(
    site: Path, config: MkDocsConfig, search: BasePlugin, lang: str, entries: list[dict[str, Any]],
    build: _Build, separator: str,
) -> None:  # fmt: skip
    """The search index of language ``lang``, in its folder, with its pages' terms as tags and its
    sections' index pages below their pages (the option ``section_boost``)."""
    prefix = i18n.prefix(config, lang)
    terms, sections = build.terms, build.sections
    pages = (terms.get(lang) or {}).get("pages") or {}
    tags = {_url(path): [_tag(term, path, build.source) for term in page_terms] for path, page_terms in pages.items()}
    words = re.compile(separator)
    docs = []
    for entry in entries:
        entry = dict(entry, text=_slim(_plain_code(entry["text"])), title=_slim(entry["title"]))
        if entry["location"].partition("#")[0] in sections:
            entry["boost"] = entry.get("boost", 1) * build.boost
        location = entry["location"].removeprefix(prefix) if prefix else entry["location"]
        entry["location"] = location
        if location in tags:
            # a term the index would cut into words (NaN loss, torch.Tensor, 多GPU) is a phrase: the worker
            # matches it whole against the query, where a tag of its words would answer each word alone
            # (the tag loss of "NaN loss" put its page first for every query with "loss")
            # (its words weigh in the field phrases, below the title's); a name (weights_only, torch.Tensor)
            # only whole: its words (weights, only, tensor) are the words of many other subjects
            terms_of_page = tags.pop(location)
            entry["tags"] = [t for t in terms_of_page if not words.search(_apart(t))]
            entry["phrases"] = [t for t in terms_of_page if words.search(_apart(t)) and not _CODE_NAME.search(t)]
            entry["names"] = [t for t in terms_of_page if words.search(_apart(t)) and _CODE_NAME.search(t)]
            for name in ("tags", "phrases", "names"):
                if not entry[name]:
                    del entry[name]
        docs.append(entry)
    if tags:
        raise RuntimeError(f"search terms name pages or sections that are not in the {lang} index: {sorted(tags)}")
    index = {
        "config": {
            "lang": ["en"] if lang == "en" else ["en", lang],
            "separator": separator,
            "pipeline": search.config.pipeline,
            "fields": search.config.fields,
            "synonyms": _synonyms((terms.get(lang) or {}).get("synonyms") or [], lang, build.source),
        },
        "docs": docs,
    }
    path = site / prefix / "search" / "search_index.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def _plain_code(text: str) -> str:
    """An entry's text with its code as plain text: about 37 KB less per index (titles keep it); the names a
    block of code uses (_names) in ``<i>``, which the worker leaves out of a result's teaser (what search
    finds, not what a result shows)."""

    def plain(element: html_parse.Element) -> str | None:
        if element.tag == "code":
            return element.inner
        names = element.children[0] if element.start_tag == "<p>" and len(element.children) == 1 else None
        if names and names.start_tag == "<code>" and names.outer == element.inner and not names.children:
            return f"<i>{names.inner}</i>"
        return None

    return html_parse.rewrite(text, plain)


_CODE_NAME = re.compile(r"\w[._]\w")  # a term written as code: weights_only, torch.Tensor
_TAG = re.compile(rf"[\w{cjk.PUNCTUATION} .+-]{{1,40}}")


def _tag(term: object, page: str, source: str = "terms.yml") -> str:
    """A search term as a tag: words only. Material shows tags as HTML in its results, so a ``<`` or ``&``
    from a pull request's terms.yml would become markup on every page that searches."""
    if not isinstance(term, str) or not _TAG.fullmatch(term):
        raise PluginError(
            f"{source}: the term {term!r} of {page} is not a word: write letters, digits, spaces "
            "and . + - only, at most 40"
        )
    return term


def _synonyms(groups: object, lang: str, source: str = "terms.yml") -> list[list[str]]:
    """The groups of words that mean one thing to readers (GPU, 显卡, CUDA), as the search worker reads them:
    one word of the index and of the query, the group's first (search_assets/worker.js, ptOneWord)."""
    if not isinstance(groups, list) or not all(isinstance(group, list) and len(group) > 1 for group in groups):
        raise PluginError(f"{source}: {lang}.synonyms is a list of groups of two words or more")
    return [[_tag(word, f"{lang}.synonyms", source) for word in group] for group in groups]


def _url(path: str) -> str:
    """The location of a docs page (path under docs/<lang>/) in the index, without the language; with its
    ``#anchor``, the location of that section of the page."""
    path, hash_, anchor = path.partition("#")
    url = re.sub(r"(^|/)index\.md$", r"\1", path)
    url = re.sub(r"\.md$", "/", url)
    return url + hash_ + anchor


# -- the pages ------------------------------------------------------------------------------------

def _searching(output: str, lang: str, config: MkDocsConfig, where: str, build: _Build) -> str:
    """A page's HTML with our search worker, its language's index and search_assets/input.js."""
    default = i18n.default_language(config)
    name, _ = build.worker

    def config_json(text: str) -> str:
        data = json.loads(text)
        if lang != default:  # the folder of this language's index (a 404 page's base is an absolute path)
            data["base"] = f"{data['base'].rstrip('/')}/{lang}/"
        data["search"] = re.sub(r"search\.\w+\.min\.js$", name, data["search"])
        return json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")

    found = html_parse.find_all(output, "script")
    bundle = next((element for element in found if _bundle(element)), None)
    if bundle is None:
        raise RuntimeError(f"{where}: Material's script is not found")
    settings = next((element for element in found if element.attrs.get("id") == "__config"), None)

    def edit(element: html_parse.Element) -> str | None:
        if element is settings:
            return f"{element.start_tag}{config_json(element.inner)}{element.end_tag}"
        if element is bundle:  # before Material's bundle, which requests the index as it starts
            root = (element.attrs.get("src") or "").partition(BUNDLE)[0]
            return f'<script src="{html.escape(root)}{INPUT}{build.input[0]}"></script>\n{element.outer}'
        return None

    return html_parse.rewrite(output, edit, found)


def _bundle(element: html_parse.Element) -> bool:
    return element.tag == "script" and BUNDLE in (element.attrs.get("src") or "")


def _relative(path: Path, root: Path) -> str:
    """``path`` as a message names it: relative to ``root`` (the folder of mkdocs.yml) where it is inside."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


class SearchConfig(Config):
    # the words readers search for (YAML: per language, `words` for jieba, `pages` (page: its terms), `synonyms`)
    terms = config_options.Optional(config_options.File(exists=True))
    # a section's index page's score is multiplied by this (it lists every page of its section)
    section_boost = config_options.Type(float, default=SECTION_BOOST)


class SearchPlugin(BasePlugin[SearchConfig]):
    def __init__(self) -> None:
        super().__init__()
        # now: None where no build with search is under way
        self._builds = i18n.BuildState(lambda config: _start(config, self.config.terms, self.config.section_boost))

    def on_config(self, config: MkDocsConfig) -> None:
        self._builds.start(config)

    def on_build_error(self, *, error: Exception) -> None:
        self._builds.drop()

    @event_priority(100)  # before Material's search plugin, which then finds the page indexed
    def on_page_context(
        self, context: TemplateContext, *, page: Page, config: MkDocsConfig, nav: Navigation
    ) -> TemplateContext:
        search = _search(config)
        meta = page.meta.get("search") or {}
        content = page.content
        if search is None or meta.get("exclude") or content is None:
            return context
        index = search.search_index  # type: ignore[attr-defined]
        seen = _for_index(content)
        build = self._builds.now
        key = _key(page, seen, build.terms if build else {})
        entries = None
        if build is not None:
            entries = build.used.get(key, build.known.get(key))
        if entries is None:
            if build is not None:
                _segmenting(build)
            before = len(index.entries)
            page.content = seen
            try:
                index.add_entry_from_context(page)
            finally:
                page.content = content
            entries = json.loads(json.dumps(index.entries[before:]))  # as made: static-i18n changes them later
        else:
            index.entries.extend(json.loads(json.dumps(entries)))  # a copy: the index's entries are changed later
        if build is not None:
            build.used[key] = entries
            if page.is_index and page.parent is not None:  # a section's index, not a home page
                build.sections.add(page.url)
        page.meta["search"] = dict(meta, exclude=True)  # tells Material's plugin: done
        return context

    @event_priority(-200)  # after Material's search plugin and static-i18n
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        search, build = _search(config), self._builds.now
        if search is None or build is None:
            return
        entries = list(search.search_index.entries)  # type: ignore[attr-defined]
        if i18n.is_nested_build(config):
            # static-i18n builds the other languages inside the default one's post_build: keep each
            # one's entries, before it merges them all into one index
            build.entries[i18n.build_language(config)] = entries
            return
        self._builds.finish(config)  # the end of the build: nothing of it reaches the next one
        # the end of the default language's build: its entries, merged with the others' by static-i18n
        default, languages = i18n.default_language(config), i18n.languages(config)
        others = tuple(i18n.prefix(config, lang) for lang in languages if lang != default)
        build.entries[default] = [e for e in entries if not e["location"].startswith(others)]
        site = Path(config.site_dir)
        separator = search.config.separator.replace(r"[\s\u200b", rf"[\s\x7f{CJK_PUNCTUATION}", 1)
        for lang in languages:
            if (found := build.entries.get(lang)) is not None:
                _write_index(site, config, search, lang, found, build, separator)
        name, text = build.worker
        (site / WORKERS / name).write_text(text, encoding="utf-8")
        name, text = build.input
        (site / INPUT / name).write_text(text, encoding="utf-8")
        if build.cache is not None and build.used != build.known:  # the entries of this build's pages only
            try:
                build.cache.parent.mkdir(parents=True, exist_ok=True)
                atomic.write_text(build.cache, json.dumps(build.used, ensure_ascii=False))
            except OSError:
                pass  # a cache that cannot be written costs time, nothing else

    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        if _search(config) is None or self._builds.now is None:
            return output
        return _searching(output, i18n.page_language(page, config), config, page.file.src_uri, self._builds.now)

    @event_priority(50)  # before examples-pages', which keeps this language's 404 aside once it is made
    def on_post_template(self, output: str, *, template_name: str, config: MkDocsConfig) -> str:
        """The 404 page of each language searches as its pages do (its language's index, our worker)."""
        if template_name != "404.html" or _search(config) is None or self._builds.now is None:
            return output
        return _searching(output, i18n.build_language(config), config, template_name, self._builds.now)
