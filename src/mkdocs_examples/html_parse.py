"""The one place where HTML is read: a piece of HTML as its elements, to find, rewrite or read the text of.

Built on the standard library's ``html.parser``, as Material's search plugin reads pages. Every
other module of the engine, of the site's hooks and of tools/ works on HTML through these few
operations, never with a regular expression (tests/test_html_regexes.py checks it):

- :func:`elements`: each element in document order, with its tag, attributes, classes, depth and
  parent, and where its start tag, content and end tag are in the source;
- :func:`rewrite`: the source with the elements a function picks replaced (by anything built from
  the element's parts: unwrapped, dropped, wrapped, with something inserted before or after);
- :func:`text`: the text of a piece of HTML, character references resolved, outside the elements
  a function excludes;
- :func:`find_all`: the elements of one tag, the rest of the source skipped (for a whole page);
- :func:`first`: the first element a function picks, after a place; :func:`with_attribute`: an
  element's start tag with one attribute set.

Elements end where their end tags are, as html.parser and Material's indexer read them: an element
without one ends with the element that holds it (the HTML standard's implied ends, such as a ``<li>``
ending the one before it, are not applied; Markdown writes every end tag). Everything outside what
is rewritten stays byte for byte as written: the site's pages are rewritten by several hooks, and a
byte changed by reading is a page that differs for nothing.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html import escape
from html.parser import HTMLParser

# elements without content or end tag (the HTML standard's void elements)
VOID = frozenset(
    ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]
)


@dataclass(eq=False)
class Element:
    """An element of ``source``: its start tag is ``source[start:content]``, its content
    ``source[content:content_end]``, its end tag ``source[content_end:end]`` (empty for a void or
    self-closed element, and for one that the end of its parent or of the source closes)."""

    source: str = field(repr=False)
    tag: str  # in lower case, as html.parser reports it
    attrs: dict[str, str | None]  # values with character references resolved; None for an attribute with no value
    depth: int  # how many elements hold it
    parent: Element | None = field(repr=False)
    start: int
    content: int
    content_end: int = -1
    end: int = -1
    children: list[Element] = field(default_factory=list, repr=False)  # the elements it holds, not theirs

    @property
    def classes(self) -> tuple[str, ...]:
        return tuple((self.attrs.get("class") or "").split())

    @property
    def start_tag(self) -> str:
        return self.source[self.start : self.content]

    @property
    def inner(self) -> str:
        """Its content, as written."""
        return self.source[self.content : self.content_end]

    @property
    def end_tag(self) -> str:
        return self.source[self.content_end : self.end]

    @property
    def outer(self) -> str:
        """The element as written, tags and all."""
        return self.source[self.start : self.end]

    def has_class(self, *names: str) -> bool:
        """Whether it has every class of ``names``."""
        return set(names) <= set(self.classes)

    def descendants(self) -> Iterator[Element]:
        """The elements it holds, theirs too, in the order their start tags come."""
        for child in self.children:
            yield child
            yield from child.descendants()

    def inside(self, tag: str) -> bool:
        """Whether an element that holds it is a ``tag``."""
        parent = self.parent
        while parent is not None and parent.tag != tag:
            parent = parent.parent
        return parent is not None


class _Reader(HTMLParser):
    """Reads ``source`` into its elements, with their places in it."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=False)
        self.source = source
        self.found: list[Element] = []
        self.open: list[Element] = []
        self.open_tags: dict[str, int] = {}  # tag: how many of the open elements have it
        self.at = 0  # where the token html.parser reads starts in ``source``
        self.base = 0  # where html.parser's text starts in ``source`` (it drops what it has read as it goes)

    def updatepos(self, i: int, j: int) -> int:
        """Where html.parser goes on reading: kept as a place in ``source``, not as a line and column (the
        cost of counting lines is a third of the time html.parser takes)."""
        self.at = self.base + j
        return j

    def read(self) -> list[Element]:
        self.feed(self.source)
        self.base = len(self.source) - len(self.rawdata)
        self.close()
        while self.open:
            element = self.open.pop()
            element.content_end = element.end = len(self.source)
        return self.found

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closed=tag in VOID)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closed=True)

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], *, closed: bool) -> None:
        start = self.at
        content = start + len(self.get_starttag_text() or "")
        parent = self.open[-1] if self.open else None
        element = Element(self.source, tag, dict(attrs), len(self.open), parent, start, content)
        self.found.append(element)
        if parent is not None:
            parent.children.append(element)
        if closed:
            element.content_end = element.end = content
        else:
            self.open.append(element)
            self.open_tags[tag] = self.open_tags.get(tag, 0) + 1

    def handle_endtag(self, tag: str) -> None:
        if not self.open_tags.get(tag):
            return  # an end tag with no element open: text, as a browser ignores it
        start = self.at
        end = self.source.find(">", start) + 1 or len(self.source)
        while self.open:
            element = self.open.pop()
            self.open_tags[element.tag] -= 1
            if element.tag == tag:
                element.content_end, element.end = start, end
                return
            element.content_end = element.end = start  # closed by its parent's end tag


def elements(source: str) -> list[Element]:
    """The elements of ``source``, in the order their start tags come."""
    return _Reader(source).read()


class _Found(Exception):
    """The element :func:`find_all` reads has ended: html.parser reads no further."""


class _One(_Reader):
    """Reads the one element that starts ``source``; with ``start_only``, its start tag only."""

    def __init__(self, source: str, *, start_only: bool) -> None:
        super().__init__(source)
        self.start_only = start_only

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], *, closed: bool) -> None:
        super()._start(tag, attrs, closed=closed or self.start_only)
        if not self.open:  # the element read is void, closes itself, or is read no further
            raise _Found

    def handle_endtag(self, tag: str) -> None:
        super().handle_endtag(tag)
        if not self.open:
            raise _Found


def find_all(source: str, tag: str, *, start_only: bool = False) -> list[Element]:
    """The outermost ``tag`` elements of ``source``, each read by html.parser from its start tag to its end, the
    rest of ``source`` skipped: many times faster than :func:`elements` on a whole page, for an element that
    holds little (``link``, ``script``, ``small``, a heading). Found as they are, without what holds them
    (``parent`` None, ``depth`` 0), and inside a comment or a script's text too; one without its end tag
    ends where ``source`` does (what would end it is not read). With ``start_only``, each element's start tag
    only is read, for where it starts and its attributes (its content is then empty, and none holds another)."""
    found: list[Element] = []
    for opening in re.finditer(rf"<{re.escape(tag)}(?=[\s/>])", source, re.I | re.A):
        start = opening.start()
        if found and start < found[-1].end:
            continue  # inside the one found before
        reader = _One(source[start:], start_only=start_only)
        try:
            reader.read()
        except _Found:
            pass
        if reader.found:
            element = reader.found[0]
            element.source = source
            element.start, element.content = element.start + start, element.content + start
            element.content_end, element.end = element.content_end + start, element.end + start
            for inner in reader.found[1:]:
                inner.source = source
                inner.start, inner.content = inner.start + start, inner.content + start
                inner.content_end, inner.end = inner.content_end + start, inner.end + start
            found.append(element)
    return found


def rewrite(
    source: str, edit: Callable[[Element], str | None], found: list[Element] | None = None, *, tidy: bool = False
) -> str:
    """``source`` with each element for which ``edit`` returns a string replaced by that string (its own
    elements then not offered to ``edit``); the rest as written. ``found``: ``elements(source)``, if at hand;
    ``tidy``: an element replaced by nothing takes the white space after it along."""
    parts, at = [], 0
    for element in elements(source) if found is None else found:
        if element.start < at:
            continue  # inside an element already replaced
        replaced = edit(element)
        if replaced is not None:
            parts += [source[at : element.start], replaced]
            at = element.end
            while tidy and not replaced and at < len(source) and source[at].isspace():
                at += 1
    parts.append(source[at:])
    return "".join(parts)


class _Text(HTMLParser):
    def __init__(self, excluded: Callable[[str, dict[str, str | None]], bool]) -> None:
        super().__init__(convert_charrefs=True)
        self.excluded = excluded
        self.parts: list[str] = []
        self.open: list[bool] = []  # for each open element: whether it is excluded, or inside one that is

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID:
            self.open.append((bool(self.open) and self.open[-1]) or self.excluded(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if self.open:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        if not (self.open and self.open[-1]):
            self.parts.append(data)


def text(source: str, excluded: Callable[[str, dict[str, str | None]], bool] = lambda tag, attrs: False) -> str:
    """The text of ``source``, its character references resolved, outside the elements ``excluded`` picks
    (by tag and attributes)."""
    reader = _Text(excluded)
    reader.feed(source)
    reader.close()
    return "".join(reader.parts)


def first(found: list[Element], picked: Callable[[Element], bool], after: int = 0) -> Element | None:
    """The first element of ``found`` that ``picked`` picks and that starts at ``after`` or later."""
    starts = [element.start for element in found]
    return next((e for e in found[bisect.bisect_left(starts, after) :] if picked(e)), None)


# an attribute of a start tag, as html.parser finds it (its `attrfind_tolerant`): name, then = and value
_ATTRIBUTE = re.compile(
    r"""((?<=['"\s/])[^\s/>][^\s/=>]*)(\s*=+\s*('[^']*'|"[^"]*"|(?!['"])[^>\s]*))?(?:\s|/(?!>))*"""
)


def with_attribute(element: Element, name: str, value: str) -> str:
    """The start tag of ``element`` as written, with the value of its attribute ``name`` set to ``value`` (escaped,
    in double quotes): added at the end of the tag where it has none."""
    tag = element.start_tag
    written = f'"{escape(value)}"'
    for found in _ATTRIBUTE.finditer(tag, len(element.tag) + 1):
        if found[1].lower() == name:
            if found[3] is None:  # an attribute without a value
                return f"{tag[: found.end(1)]}={written}{tag[found.end(1) :]}"
            return f"{tag[: found.start(3)]}{written}{tag[found.end(3) :]}"
    closing = len(tag) - (2 if tag.endswith("/>") else 1)
    return f"{tag[:closing].rstrip()} {name}={written}{tag[closing:]}"
