"""Front matter is data, never markup (the option ``front_matter`` of the MkDocs plugin `examples-page-html`).

A page's front matter (the YAML between ``---`` lines at its top) comes from a stranger's pull request as
much as its prose does, and the theme prints its values into every page's ``<head>``, header and
navigation as written (Material prints ``page.meta.title`` into ``<title>``, ``page.meta.author`` into a
``<meta>`` element's attribute, ``nav_item.meta.subtitle`` into the navigation of every page), before the
site's Content-Security-Policy and outside the content examples-page-html checks. So:

- a page sets only the keys of an allow-list: the option ``front_matter``, by default those the site's
  templates and plugins read and that run nothing. ``template:`` is never among them: a page with a
  template of its own would be published without the site's policy (overrides/main.html);
- no string in a value holds ``<``, ``>``, ``&`` or ``"`` (nor a control character): with none of them, no
  value can open an element, end an attribute or be read as a character reference, wherever a template
  prints it, escaped or not (Jinja's ``striptags`` turns ``&lt;`` back into ``<``).

Each key found is a warning naming the page's file, line and key and saying what to write instead (a strict
build fails), and a build that goes on publishes the page without that key. YAML escapes (``"\\x3c"``)
are read before the check, as the theme reads them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mkdocs_examples import yaml_files

# the keys a page may set: what PyTorch Tips' templates and the engine's plugins read, nothing that
# chooses markup (template, icon: a file the theme inlines) or that the theme prints unread (author, subtitle)
ALLOWED = ("title", "description", "search", "hide", "take_away")
_FRONT = re.compile(r"^-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.S)  # mkdocs.utils.meta's YAML_RE
MARKUP = re.compile(r'[<>&"\x00-\x08\x0b-\x1f\x7f]')


@dataclass(frozen=True)
class Finding:
    key: str  # the top-level key of the front matter
    message: str


def check(meta: Mapping[str, Any], allowed: Iterable[str] = ALLOWED) -> list[Finding]:
    """What in ``meta`` (a page's front matter, as YAML read it) a page may not set, one finding per key."""
    allowed = tuple(allowed)
    found = []
    for key, value in meta.items():
        if key == "template":
            why = "a page is published with the site's own template, which carries its Content-Security-Policy"
            found.append(Finding(key, f"`template:` cannot be set by a page: {why}; remove it"))
        elif key not in allowed:
            found.append(Finding(key, f"`{key}:` is not a key a page may set ({', '.join(allowed)}); remove it"))
        elif (text := next((t for t in _strings(value) if MARKUP.search(t)), None)) is not None:
            character = MARKUP.search(text).group()  # type: ignore[union-attr]
            shown = f"`{character}`" if character.isprintable() else repr(character)
            why = 'front matter is plain text, printed as it is into every page; write "and" for &, “ ” for quotes'
            found.append(Finding(key, f"the value of `{key}:` holds {shown}: {why}"))
    return found


def _strings(value: object) -> Iterator[str]:
    """Every string in ``value``, keys of mappings included, at any depth."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack += [*item.keys(), *item.values()]
        elif isinstance(item, (list, tuple, set)):
            stack += list(item)


def read(source: str, name: str = "<page>") -> dict[str, Any]:
    """The front matter of a page's ``source`` as MkDocs reads it (the YAML between a first line ``---`` and
    the next ``---`` or ``...``; PyYAML's safe loader), without MkDocs; {} where there is none. A tagged value
    reads as None; :class:`ValueError` naming ``name`` and the line where the YAML is not valid."""
    found = _FRONT.match(source)
    data = yaml_files.loads(found.group(1), name) if found else None
    return data if isinstance(data, dict) else {}


def line(source: str, key: str) -> int | None:
    """The line of ``key:`` in the front matter at the top of ``source``, or None."""
    lines = source.splitlines()
    if not lines or lines[0].rstrip() != "---":
        return None
    for number, text in enumerate(lines[1:], start=2):
        if text.rstrip() in ("---", "..."):
            return None
        if re.match(rf"""\s*["']?{re.escape(key)}["']?\s*:""", text):
            return number
    return None
