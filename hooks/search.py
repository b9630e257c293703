"""Search per language, Chinese queries typed without spaces, pasted error lines.

MkDocs hook (registered under `hooks:` in mkdocs.yml) around Material's search plugin and
mkdocs-static-i18n:

- mkdocs-static-i18n merges every language into one `search/search_index.json` (its issue #271).
  We keep each language's entries as its own build ends and write one index per language:
  `search/search_index.json` for the default language, `<lang>/search/search_index.json` for the
  others, whose pages get their language's folder as the search `base` (so they load only their
  index, and its locations are relative to that folder).
- The index holds what readers search for: prose, the names the code uses, error and warning
  lines; not the code itself, printed values, provenance lines or traceback frames. It is written
  as UTF-8, not \\uXXXX. (A page and its index: at most 400 KB.)
- Terms readers type (hooks/search_assets/terms.yml) go into jieba's dictionary and onto their
  page's index entry as tags.
- The browser segments a Chinese query against the index's own words (our worker: Material's, with
  its segmentation of Han characters replaced, see search_assets/worker.js), searches when the
  reader pastes with the mouse, and loads the index when the reader goes to the search, not with
  every page (search_assets/input.js).
"""

from __future__ import annotations

import hashlib
import html
import json
import keyword
import re
from pathlib import Path

import yaml
from mkdocs.plugins import event_priority

ASSETS = Path(__file__).parent / "search_assets"
WORKERS = "assets/javascripts/workers"
INPUT = "assets/javascripts/"

# Chinese punctuation splits words like the configured separator does, so the index needs no
# zero-width space next to it
CJK_PUNCTUATION = "，。、；：？！“”‘’（）《》【】…—"

_state: dict = {}


def _plugin(config, *names):
    for name in names:
        if name in config.plugins:
            plugin = config.plugins[name]
            return plugin if plugin.config.get("enabled", True) else None  # hooks/serve.py disables search
    return None


def _i18n(config):
    return _plugin(config, "i18n")


def _languages(config) -> tuple[str, list[str]]:
    """The default language and all the built ones."""
    i18n = _i18n(config)
    if i18n is None:
        return "en", ["en"]
    return i18n.default_language, list(i18n.build_languages)


def _material_worker() -> Path:
    import material

    found = sorted((Path(material.__file__).parent / "templates" / WORKERS).glob("search.*.min.js"))
    if len(found) != 1:
        raise RuntimeError(f"expected one search worker in Material, found {found}")
    return found[0]


def _patched_worker() -> tuple[str, str]:
    """Our worker: Material's, with its segmentation of Han characters replaced by ours."""
    source = _material_worker().read_text(encoding="utf-8")
    # Material's worker segments each run of Han characters of the query with its own function,
    # `[...fe(s,this.index.invertedIndex)]`, which never tries a run's last character
    call = re.compile(r"\[\.\.\.[A-Za-z_$][\w$]*\((\w+),this\.index\.invertedIndex\)\]")
    if len(call.findall(source)) != 1:
        raise RuntimeError("Material's search worker changed: its Chinese segmentation call is not found")
    source = call.sub(r"[...ptSegment(\1,this.index.invertedIndex)]", source)
    ours = (ASSETS / "worker.js").read_text(encoding="utf-8")
    return _hashed("search.{}.min.js", f"{ours}\n{source}")


def _hashed(pattern: str, text: str) -> tuple[str, str]:
    """A file name with a hash of the text, so that browsers never keep a stale copy."""
    return pattern.format(hashlib.sha256(text.encode()).hexdigest()[:8]), text


def _terms() -> dict:
    return yaml.safe_load((ASSETS / "terms.yml").read_text(encoding="utf-8")) or {}


def on_config(config):
    i18n = _i18n(config)
    if i18n is not None and i18n.building:  # static-i18n building another language
        return
    if _plugin(config, "material/search", "search") is None:
        return
    _state["terms"] = terms = _terms()
    _state["worker"] = _patched_worker()
    _state["input"] = _hashed("search-input.{}.js", (ASSETS / "input.js").read_text(encoding="utf-8"))
    _state["entries"] = {}
    import jieba  # Material's search plugin segments Chinese text with it

    for lang in terms.values():
        for word in lang.get("words") or []:
            jieba.add_word(word)
        for page_terms in (lang.get("pages") or {}).values():
            for word in page_terms:
                jieba.add_word(word)


# -- what the index holds --------------------------------------------------------------------------

_PROVENANCE = re.compile(r'<p><small class="mx-provenance[^"]*">.*?</small></p>', re.S)  # recorded ones too
_LABEL = re.compile(r'<span class="filename">.*?</span>', re.S)
# what a cell printed (under its "Output" label); a text block written in the page has no label
_OUTPUT = re.compile(r'<div class="language-text highlight"><span class="filename">.*?</div>', re.S)
_CODE = re.compile(r'<div class="language-python highlight">(?:<table.*?</table>|.*?</pre>)</div>', re.S)
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_PLAIN = set(keyword.kwlist) | {"print", "range", "len", "list", "dict", "tuple", "str", "int", "float", "self"}
_ERRORISH = re.compile(r"Error|Exception|Warning", re.I)


def _names(code: str) -> str:
    """The names a block of code uses, once each: what readers search a code block for."""
    text = html.unescape(re.sub(r"<[^>]+>", "", code))
    text = re.sub(r"#.*|'[^'\n]*'|\"[^\"\n]*\"", " ", text)  # comments and strings
    names = dict.fromkeys(n for n in _NAME.findall(text) if len(n) > 1 and n not in _PLAIN)
    return f"<p><code>{' '.join(names)}</code></p>" if names else ""


def _for_index(content: str) -> str:
    """The page as the index sees it: prose, the names its code uses, errors and warnings.

    Left out: the provenance line under every output, file names and "Output" labels, printed
    values (unless an error or a warning), and the code itself (its names stay).
    """
    content = _PROVENANCE.sub("", content)
    content = _OUTPUT.sub(lambda m: m.group(0) if _ERRORISH.search(m.group(0)) else "", content)
    content = _LABEL.sub("", content)
    return _CODE.sub(lambda m: _names(m.group(0)), content)


@event_priority(100)  # before Material's search plugin, which then finds the page indexed
def on_page_context(context, page, config, nav):
    search = _plugin(config, "material/search", "search")
    meta = page.meta.get("search") or {}
    if search is None or meta.get("exclude"):
        return context
    content = page.content
    page.content = _for_index(content)
    try:
        search.search_index.add_entry_from_context(page)
    finally:
        page.content = content
    page.meta["search"] = dict(meta, exclude=True)  # tells Material's plugin: done
    return context


# -- one index per language -----------------------------------------------------------------------

_FRAMES = re.compile(r"Traceback \(most recent call last\):\n(?:(?:  .*|\s*\^+\s*)\n)*")
_CODE_TAGS = re.compile(r"</?code>")
_ZWSP_NEEDLESS = re.compile(rf"\u200b+(?=[\s<{CJK_PUNCTUATION}]|$)|(?<=[\s>{CJK_PUNCTUATION}])\u200b+|^\u200b+")


def _slim(text: str) -> str:
    text = _FRAMES.sub("", text)  # the error line stays; the frames name our example files
    return _ZWSP_NEEDLESS.sub("", text)


@event_priority(-200)  # after Material's search plugin and static-i18n
def on_post_build(config):
    search = _plugin(config, "material/search", "search")
    if search is None:
        return
    default, languages = _languages(config)
    i18n = _i18n(config)
    if i18n is not None and i18n.building:
        # static-i18n builds the other languages inside the default one's post_build: keep each
        # one's entries, before it merges them all into one index
        _state["entries"][i18n.current_language] = list(search.search_index.entries)
        return
    # the end of the default language's build: its entries, merged with the others' by static-i18n
    others = tuple(f"{lang}/" for lang in languages if lang != default)
    _state["entries"][default] = [e for e in search.search_index.entries if not e["location"].startswith(others)]
    site = Path(config.site_dir)
    separator = search.config.separator
    separator = separator.replace(r"[\s\u200b", rf"[\s\u200b{CJK_PUNCTUATION}", 1)
    for lang in languages:
        entries = _state["entries"].get(lang)
        if entries is None:
            continue
        prefix = "" if lang == default else f"{lang}/"
        pages = (_state["terms"].get(lang) or {}).get("pages") or {}
        tags = {_url(path): terms for path, terms in pages.items()}
        docs = []
        for entry in entries:
            # code in the text of results as plain text: about 37 KB less per index (titles keep it)
            entry = dict(entry, text=_slim(_CODE_TAGS.sub("", entry["text"])), title=_slim(entry["title"]))
            location = entry["location"]
            if prefix and location.startswith(prefix):
                location = location[len(prefix) :]
            entry["location"] = location
            if location in tags:
                entry["tags"] = list(tags.pop(location))
            docs.append(entry)
        if tags:
            raise RuntimeError(f"search terms name pages that are not in the {lang} index: {sorted(tags)}")
        index = {
            "config": {
                "lang": ["en"] if lang == "en" else ["en", lang],
                "separator": separator,
                "pipeline": search.config.pipeline,
                "fields": search.config.fields,
            },
            "docs": docs,
        }
        path = site / prefix / "search" / "search_index.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    name, text = _state["worker"]
    (site / WORKERS / name).write_text(text, encoding="utf-8")
    name, text = _state["input"]
    (site / INPUT / name).write_text(text, encoding="utf-8")
    _state["entries"] = {}


def _url(path: str) -> str:
    """The location of a docs page (path under docs/<lang>/) in the index, without the language."""
    url = re.sub(r"(^|/)index\.md$", r"\1", path)
    url = re.sub(r"\.md$", "/", url)
    return url


# -- the pages ------------------------------------------------------------------------------------

_CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.S)


def on_post_page(output, page, config):
    if _plugin(config, "material/search", "search") is None:
        return output
    default, _ = _languages(config)
    lang = getattr(page.file, "locale", None) or default
    name, _ = _state["worker"]

    def config_json(match):
        data = json.loads(match.group(2))
        if lang != default:
            data["base"] = f"{data['base']}/{lang}/"  # the folder of this language's index
        data["search"] = re.sub(r"search\.\w+\.min\.js$", name, data["search"])
        text = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")
        return f"{match.group(1)}{text}{match.group(3)}"

    output = _CONFIG.sub(config_json, output, count=1)
    # before Material's bundle, which requests the index as it starts
    bundle = re.search(r'<script src="([^"]*)assets/javascripts/bundle\.', output)
    if bundle is None:
        raise RuntimeError(f"{page.file.src_uri}: Material's script is not found")
    script = f'<script src="{bundle.group(1)}{INPUT}{_state["input"][0]}"></script>\n'
    return f"{output[: bundle.start()]}{script}{output[bundle.start() :]}"
