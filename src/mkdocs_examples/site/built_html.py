"""Every HTML file of a built site carries the Content-Security-Policy first and nothing that scripts the site
(the MkDocs plugin `examples-csp`, after the build).

The checks before it (examples-page-html on each page's content, the front matter's allow-list) each trust
that the theme's templates print nothing of a page's as markup; this one trusts no template. It reads every
``.html`` file the build wrote (pages, notebook views, the error index, the changes page, each language's
404) as a browser would, and finds:

- a ``<head>`` whose first element is not the ``<meta http-equiv="Content-Security-Policy">``: a policy in a
  meta element governs only what comes after it, and a page's data printed before it would run unchecked;
- a policy that lets a script of the page's content run (``'unsafe-inline'``, ``'unsafe-eval'``, a host or a
  scheme in ``script-src``), or leaves plugins, ``<base>`` or workers open (``object-src``, ``base-uri``,
  ``worker-src``);
- an element that embeds another document or redirects (``iframe``, ``object``, ``embed``, ``base``…, a
  ``<meta http-equiv>`` other than the policy: ``refresh`` is not stopped by any policy), a ``<meta>`` outside
  ``<head>``, a form sent elsewhere;
- an attribute that runs script (``on…``, a ``javascript:`` URL, an SVG animation of either) or a ``data:``
  URL but an image's (the rules of examples-page-html, page_html.py);
- a script from another site (``src`` with a scheme or a host), and an inline script that is none of the
  theme's: its text must be the text of a ``<script>`` of the theme's templates, where each ``{{ … }}`` of the
  template may be any text without ``<`` (what Jinja printed there), or a JavaScript file of the theme's
  folders, whole (``{% include "partials/palette.js" %}``, mkdocs-jupyter's inlined clipboard script).

Each file with a finding is a warning naming it (a strict build fails). The reading is linear in the file's
size: one pass of html.parser over the whole file, and one anchored match per inline script.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from mkdocs_examples import html_parse
from mkdocs_examples.site import page_html

# elements no built file holds, anywhere: another document, a plugin, a base for every link
EMBEDS = {"iframe", "frame", "frameset", "object", "embed", "applet", "portal", "base"}
POLICY = "content-security-policy"
_META_KEYS = {"charset", "name", "property", "content", "itemprop", "media"}  # what a <meta> may say but the policy
_JINJA = re.compile(r"{{.*?}}|{%-?\s*include\s+[\"']([^\"']+)[\"'].*?%}|{%.*?%}|{#.*?#}", re.S)


@dataclass
class Scripts:
    """The inline scripts a theme may write: patterns of its templates' scripts, and whole JavaScript files."""

    patterns: list[re.Pattern[str]] = field(default_factory=list)
    files: set[str] = field(default_factory=set)

    def known(self, text: str) -> bool:
        normal = text.replace("\r\n", "\n").strip()
        return normal in self.files or any(p.fullmatch(normal) for p in self.patterns)


def theme_scripts(folders: Iterable[Path]) -> Scripts:
    """The inline scripts of the templates (``*.html``, ``*.j2``) and JavaScript files in ``folders``."""
    folders = [Path(f) for f in folders if Path(f).is_dir()]
    scripts = Scripts()
    for folder in folders:
        for path in folder.rglob("*"):
            if path.suffix == ".js" and path.is_file():
                scripts.files.add(path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n").strip())
            elif path.suffix in (".html", ".j2") and path.is_file():
                template = path.read_text(encoding="utf-8", errors="replace")
                for element in html_parse.find_all(template, "script"):
                    kind = (element.attrs.get("type") or "").strip().lower()
                    if "src" not in element.attrs and kind in html_parse.SCRIPT_TYPES:
                        body = template[element.content : element.content_end]
                        if (pattern := _pattern(body, folders)) is not None:
                            scripts.patterns.append(pattern)
    return scripts


def _pattern(body: str, folders: list[Path]) -> re.Pattern[str] | None:
    """A template's script body as a pattern of what it renders to: its text as written but for the amount of
    white space (Jinja's ``{%- … %}`` takes some away), each ``{{ … }}`` any text without ``<``. None for a body
    with no text of its own (``<script>{{ code }}</script>``): what it writes is not the template's."""
    parts, at = [], 0
    for match in _JINJA.finditer(body):
        parts.append(_literal(body[at : match.start()]))
        token, included = match.group(), match.group(1)
        if included and (found := next((f / included for f in folders if (f / included).is_file()), None)):
            parts.append(_literal(found.read_text(encoding="utf-8", errors="replace")))
        elif token.startswith("{{"):
            parts.append(r"[^<]*")
        at = match.end()
    parts.append(_literal(body[at:]))
    if not any(part and part != r"[^<]*" for part in parts):
        return None
    return re.compile(r"\s*" + r"\s*".join(p for p in parts if p) + r"\s*", re.S)


def _literal(text: str) -> str:
    return r"\s*".join(re.escape(word) for word in text.split())


def check(html: str, scripts: Scripts) -> list[str]:
    """What in ``html``, a built file, breaks the rules above."""
    problems: list[str] = []
    head = first = None  # the <head> start tag, and the first element in it
    in_head = False
    policies = 0
    opened: html_parse.Tag | None = None  # the start tag of the inline script being read
    for tag in html_parse.tags(html, names=_READ, words=_SUSPECT):
        if tag.closing:
            in_head = in_head and tag.name not in ("head", "body")
            if tag.name == "script" and opened is not None:
                problems += _script(html[opened.end : tag.start], scripts)
                opened = None
            continue
        found = dict(tag.attrs)
        if tag.name == "head":
            head, in_head = tag, True
            continue
        if tag.name == "body":
            in_head = False
        elif in_head and first is None:
            first = tag
        if tag.name in EMBEDS:
            problems.append(f"<{tag.name}> embeds another document or moves every link: no page holds one")
        elif tag.name == "meta":
            equiv = (found.get("http-equiv") or "").strip().lower()
            if not in_head:
                problems.append("<meta> outside <head>: a page's own markup reached the document")
            elif "charset" in found and tag.start >= 1024:
                problems.append("the charset <meta> starts after the first 1024 bytes, where browsers look for it")
            elif equiv == POLICY:
                policies += 1
                problems += [f"the Content-Security-Policy {why}" for why in policy_problems(found.get("content"))]
            elif equiv or set(found) - _META_KEYS:
                said = f'http-equiv="{equiv}"' if equiv else ", ".join(sorted(set(found) - _META_KEYS))
                problems.append(f"<meta {said}>: a page's <head> holds only the policy and plain metadata")
        elif tag.name == "form" and found.get("action"):
            problems.append(f'<form action="{found["action"]}">: no form of the site is sent anywhere')
        elif tag.name == "script":
            source = (found.get("src") or "").strip()
            if source and (re.match(r"[a-z][a-z0-9+.-]*:|//", source.lower()) or "\\" in source):
                problems.append(f'<script src="{source}">: the site runs only scripts of its own files')
            executable = (found.get("type") or "").strip().lower() in html_parse.SCRIPT_TYPES
            opened = tag if executable and "src" not in found else None
        for name, value in tag.attrs:
            if (problem := page_html._attribute(tag.name, name, value)) is not None:
                problems.append(problem.message)
            elif name == "formaction":
                problems.append(f"`formaction` on <{tag.name}>: no form of the site is sent anywhere")
    if head is None:
        problems.insert(0, "no <head>: every file of the site starts with the site's template")
    elif first is None or not _is_policy(first.name, dict(first.attrs)):
        problems.insert(0, f"the first element of <head> is {f'<{first.name}>' if first else 'nothing'}, "
                        "not the Content-Security-Policy's <meta>")  # fmt: skip
    if policies > 1:
        problems.append("more than one Content-Security-Policy: the site's template writes one")
    return problems


_READ = EMBEDS | {"head", "body", "meta", "form", "script"}
# what an attribute that runs script holds: a name on…, a URL's scheme, an animation; & for references in either
_SUSPECT = ("script:", "data:", "attributename", "formaction", "&")


def _script(text: str, scripts: Scripts) -> list[str]:
    if not text.strip() or ("<!--" not in text and scripts.known(text)):
        return []
    shown = " ".join(text.split())[:60]
    return [f"an inline script that none of the theme's templates writes: <script>{shown}…"]


def _is_policy(tag: str, found: dict[str, str | None]) -> bool:
    return tag == "meta" and (found.get("http-equiv") or "").strip().lower() == POLICY


def policy_problems(policy: str | None) -> list[str]:
    """What in a Content-Security-Policy lets a page's own script run, or a plugin, a base or a worker in."""
    directives: dict[str, list[str]] = {}
    for part in (policy or "").split(";"):
        if words := part.split():
            directives.setdefault(words[0].lower(), words[1:])
    script = directives.get("script-src", directives.get("default-src"))
    problems = []
    if script is None:
        problems.append("has no script-src")
    else:
        loose = [w for w in script if w.lower() in ("'unsafe-inline'", "'unsafe-eval'", "*", "'unsafe-hashes'")
                 or (not w.startswith("'") and w.lower() != "'self'")]  # fmt: skip
        if loose:
            problems.append(f"lets other scripts run: script-src {' '.join(loose)}")
        if any(w.lower() == "'inline-script-hashes'" for w in script):
            problems.append("still holds its placeholder: the plugin examples-csp did not write its hashes")
    for name, want in (("object-src", "'none'"), ("base-uri", "'none'")):
        if directives.get(name) != [want]:
            problems.append(f"does not say {name} {want}")
    if directives.get("worker-src", directives.get("default-src")) not in (["'self'"], ["'none'"]):
        problems.append("lets workers come from elsewhere: worker-src 'self'")
    return problems


def html_files(site: Path) -> Iterator[Path]:
    """Every HTML file under ``site``, in order; symbolic links are not followed (a built site has none)."""
    yield from sorted(
        p for p in site.rglob("*") if p.suffix.lower() in (".html", ".htm") and p.is_file() and not p.is_symlink()
    )


def template_folders(theme: Iterable[Path | str] = ()) -> list[Path]:
    """The folders of the templates that write a site's pages: the ``theme``'s (MkDocs' ``theme.dirs``, or a
    ``custom_dir``), then Material's, mkdocs-jupyter's and nbconvert's, those installed (the notebook views)."""
    folders = [Path(folder) for folder in theme]
    for name, inside in (("material", "templates"), ("mkdocs_jupyter", "templates")):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        folders.append(Path(module.__file__ or "").parent / inside)
    try:
        import jupyter_core.paths

        folders += [Path(p) for p in jupyter_core.paths.jupyter_path("nbconvert", "templates")]
    except ImportError:
        pass
    return list(dict.fromkeys(f.resolve() for f in folders))
