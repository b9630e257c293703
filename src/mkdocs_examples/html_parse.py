"""The one place where HTML is read: a piece of HTML as its elements, to find, rewrite or read the text of.

Built on the standard library's ``html.parser``, as Material's search plugin reads pages. Every
other module of the engine, of its site plugins and of tools/ works on HTML through these few
operations, never with a regular expression (tests/test_html_regexes.py checks it):

- :func:`elements`: each element in document order, with its tag, attributes, classes, depth and
  parent, and where its start tag, content and end tag are in the source;
- :func:`rewrite`: the source with the elements a function picks replaced (by anything built from
  the element's parts: unwrapped, dropped, wrapped, with something inserted before or after);
- :meth:`Element.text`: an element's text, character references resolved, outside the elements
  a function excludes;
- :func:`find_all`: the elements of one tag, the rest of the source skipped (for a whole page);
- :func:`with_attribute`: an element's start tag with one attribute set;
- :class:`Parser`: html.parser in time linear in its input, which every other parser of HTML of the engine
  and of its site plugins subclasses (tests/test_linear_parsers.py feeds them hostile pages).

Elements end where their end tags are, as html.parser and Material's indexer read them: an element
without one ends with the element that holds it (the HTML standard's implied ends, such as a ``<li>``
ending the one before it, are not applied; Markdown writes every end tag). Everything outside what
is rewritten stays byte for byte as written: the site's pages are rewritten by several plugins, and a
byte changed by reading is a page that differs for nothing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from html import escape, unescape
from html.parser import HTMLParser

# elements without content or end tag (the HTML standard's void elements)
VOID = frozenset(
    ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]
)

# the types a browser runs as script (HTML's "JavaScript MIME type essence matches", and modules); others are data
SCRIPT_TYPES = {
    "", "module", "text/javascript", "application/javascript", "application/ecmascript", "application/x-ecmascript",
    "application/x-javascript", "text/ecmascript", "text/javascript1.0", "text/javascript1.1", "text/javascript1.2",
    "text/javascript1.3", "text/javascript1.4", "text/javascript1.5", "text/jscript", "text/livescript",
    "text/x-ecmascript", "text/x-javascript",
}  # fmt: skip


class Parser(HTMLParser):
    """html.parser, in time linear in the source on any input: every parser of the engine's is one.

    html.parser finds the end of a comment, a CDATA section, a processing instruction, a declaration
    or an end tag by searching the rest of its text for it; where the end never comes (``<!--`` many
    times over, unclosed), each one searches to the end of the text again, and a page of such pieces
    takes time in the square of its size. Here each search goes on from where the last one of its kind
    found its end (the first end at or after the one searched from is the same), and :meth:`parse`
    gives html.parser only the text up to the last ``>`` (nothing after it can end a tag, a comment or
    anything else: html.parser reads it as text, and so does a browser), so that html.parser's closing
    pass over unfinished pieces does not search to the end for each. What html.parser reports is the
    same: the searches find what its own would.
    """

    def reset(self) -> None:
        super().reset()
        self._found: dict[object, tuple[int, int, int]] = {}  # terminator: searched from, its start, its end
        self._searched = ""  # the text ``_found`` holds places in (html.parser drops what it has read)

    def parse(self, source: str) -> None:
        """Reads all of ``source``: fed, closed, its text after the last ``>`` given to :meth:`handle_data`
        (outside a raw-text element, as html.parser does)."""
        last = source.rfind(">") + 1
        self.feed(source[:last] if last < len(source) else source)
        self.fed(last)
        self.close()
        if last < len(source) and not self.cdata_elem:
            self.handle_data(source[last:])

    def fed(self, length: int) -> None:
        """Called between feeding and closing, with the length of the text fed."""

    def _next(self, terminator: re.Pattern[str] | str, at: int) -> tuple[int, int]:
        """Where the first ``terminator`` (a pattern, or a string) at or after ``at`` starts and ends in
        ``rawdata``; (-1, -1) where there is none."""
        if self.rawdata is not self._searched:
            self._searched, self._found = self.rawdata, {}
        known = self._found.get(terminator)
        if known is not None and known[0] <= at and (known[1] < 0 or at <= known[1]):
            return known[1], known[2]
        if isinstance(terminator, str):
            start = self.rawdata.find(terminator, at)
            end = start + len(terminator) if start >= 0 else -1
        else:
            match = terminator.search(self.rawdata, at)
            start, end = (match.start(), match.end()) if match else (-1, -1)
        self._found[terminator] = (at, start, end)
        return start, end

    # html.parser's and _markupbase's own (Python 3.11), each search of the rest of the text made by _next

    def parse_comment(self, i: int, report: int = 1) -> int:
        rawdata = self.rawdata
        if rawdata[i : i + 4] != "<!--":
            raise AssertionError("unexpected call to parse_comment()")
        start, end = self._next(_COMMENT_CLOSE, i + 4)
        if start < 0:
            return -1
        if report:
            self.handle_comment(rawdata[i + 4 : start])
        return end

    def parse_marked_section(self, i: int, report: int = 1) -> int:
        rawdata = self.rawdata
        name, j = self._scan_name(i + 3, i)  # type: ignore[attr-defined]
        if j < 0:
            return j
        if name in {"temp", "cdata", "ignore", "include", "rcdata"}:
            start, end = self._next(_SECTION_CLOSE, i + 3)
        elif name in {"if", "else", "endif"}:
            start, end = self._next(_MS_SECTION_CLOSE, i + 3)
        else:
            raise AssertionError(f"unknown status keyword {rawdata[i + 3 : j]!r} in marked section")
        if start < 0:
            return -1
        if report:
            self.unknown_decl(rawdata[i + 3 : start])
        return end

    def parse_html_declaration(self, i: int) -> int:
        rawdata = self.rawdata
        if rawdata[i : i + 4] == "<!--":
            return self.parse_comment(i)
        if rawdata[i : i + 3] == "<![":
            try:
                return self.parse_marked_section(i)
            except AssertionError:  # no keyword html.parser knows (`<![x]]>`): a bogus comment, as to a browser
                return self.parse_bogus_comment(i)
        if rawdata[i : i + 9].lower() == "<!doctype":
            end, _ = self._next(">", i + 9)
            if end < 0:
                return -1
            self.handle_decl(rawdata[i + 2 : end])
            return end + 1
        return self.parse_bogus_comment(i)

    def parse_bogus_comment(self, i: int, report: int = 1) -> int:
        end, _ = self._next(">", i + 2)
        if end < 0:
            return -1
        if report:
            self.handle_comment(self.rawdata[i + 2 : end])
        return end + 1

    def parse_pi(self, i: int) -> int:
        start, end = self._next(">", i + 2)
        if start < 0:
            return -1
        self.handle_pi(self.rawdata[i + 2 : start])
        return end

    def parse_endtag(self, i: int) -> int:
        rawdata = self.rawdata
        _, gtpos = self._next(">", i + 1)
        if gtpos < 0:
            return -1
        match = _END_TAG.match(rawdata, i)  # </ + tag + >
        if not match:
            if self.cdata_elem is not None:
                self.handle_data(rawdata[i:gtpos])
                return gtpos
            name = _TAG_NAME.match(rawdata, i + 2)
            if not name:
                if rawdata[i : i + 3] == "</>":
                    return i + 3
                return self.parse_bogus_comment(i)
            self.handle_endtag(name.group(1).lower())
            return self._next(">", name.end())[0] + 1
        tag = match.group(1).lower()
        if self.cdata_elem is not None and tag != self.cdata_elem:
            self.handle_data(rawdata[i:gtpos])
            return gtpos
        self.handle_endtag(tag)
        self.clear_cdata_mode()
        return gtpos


_COMMENT_CLOSE = re.compile(r"--\s*>")
_SECTION_CLOSE = re.compile(r"]\s*]\s*>")
_MS_SECTION_CLOSE = re.compile(r"]\s*>")
_END_TAG = re.compile(r"</\s*([a-zA-Z][-.a-zA-Z0-9:_]*)\s*>")
_TAG_NAME = re.compile(r"([a-zA-Z][^\t\n\r\f />\x00]*)(?:\s|/(?!>))*")


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

    def text(self, excluded: Callable[[str, dict[str, str | None]], bool] = lambda tag, attrs: False) -> str:
        """Its text, character references resolved, outside the elements it holds that ``excluded`` picks (by
        tag and attributes): read from where its elements are, the source is not parsed again. (A script's or
        a style's text counts as text, and a comment too.)"""
        return unescape("".join(self._texts(excluded)))

    def _texts(self, excluded: Callable[[str, dict[str, str | None]], bool]) -> Iterator[str]:
        at = self.content
        for child in self.children:
            yield self.source[at : child.start]
            if not excluded(child.tag, child.attrs):
                yield from child._texts(excluded)
            at = max(at, child.end)
        yield self.source[at : self.content_end]

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


class _Reader(Parser):
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
        self.parse(self.source)
        while self.open:
            element = self.open.pop()
            element.content_end = element.end = len(self.source)
        return self.found

    def fed(self, length: int) -> None:
        self.base = length - len(self.rawdata)

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
        self.closing = False
        self.ended = False  # the element has ended

    def fed(self, length: int) -> None:
        super().fed(length)
        self.closing = True  # html.parser reads on to the end, what it left unfinished as text

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], *, closed: bool) -> None:
        super()._start(tag, attrs, closed=closed or self.start_only)
        if not self.open:  # the element read is void, closes itself, or is read no further
            raise _Found

    def handle_endtag(self, tag: str) -> None:
        super().handle_endtag(tag)
        if not self.open:
            raise _Found


# elements that hold none of their own kind (HTML nests no link, code block, heading, script... in another):
# :func:`find_all` ends one at the first end tag of its kind, and does not read what it holds
UNNESTED = frozenset(["a", "code", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "script", "style", "small", "title"])
_START_TAG = 2000  # characters html.parser is given first to read a start tag (all of the rest if it is longer)
# a start tag as written, its quoted values whole: to pass over one that cannot hold what is looked for
_WRITTEN_START_TAG = re.compile(r"""<[^\s/>]+(?:[^>"']|"[^"]*"|'[^']*')*>""")


def find_all(source: str, tag: str, *, start_only: bool = False, holding: str | None = None) -> list[Element]:
    """The outermost ``tag`` elements of ``source``, the rest of ``source`` skipped: many times faster than
    :func:`elements` on a whole page. Each start tag is read by html.parser; an element of :data:`UNNESTED`
    ends at the first end tag of its kind and what it holds is not read (``children`` empty); any other is read
    to its end, with what it holds. Found as they are, without what holds them (``parent`` None, ``depth`` 0),
    and inside a comment or a script's text too; one without its end tag ends where ``source`` does. With
    ``start_only``, each element's start tag only is read, for where it starts and its attributes (its content
    is then empty, and none holds another). With ``holding``, only the elements whose start tag holds that text
    (a class, an attribute's value): the others are not read."""
    found: list[Element] = []
    short = start_only or tag in UNNESTED
    end_tag = re.compile(rf"</{re.escape(tag)}(?=[\s/>])[^>]*>", re.I | re.A)
    last = source.rfind(">")  # no start tag starts after the last `>`
    for opening in re.finditer(rf"<{re.escape(tag)}(?=[\s/>])", source, re.I | re.A):
        start = opening.start()
        if start > last:
            break
        if found and start < found[-1].end:
            continue  # inside the one found before
        # (the start tag as written is looked for near its start only: a search to the end of the source for each
        # would take time in the square of its size where many never end)
        written = _WRITTEN_START_TAG.match(source, start, start + _START_TAG)
        if holding is not None and written and holding not in written[0]:
            continue  # its start tag does not hold it: not read
        element = _read(source, start, start_only=short)
        if element is None or (holding is not None and holding not in element.start_tag):
            continue  # not a start tag to html.parser, or not one that holds ``holding``
        if short and not start_only and element.end == element.content and tag not in VOID:
            closing = end_tag.search(source, element.content)
            element.content_end, element.end = (closing.start(), closing.end()) if closing else (len(source),) * 2
        found.append(element)
    return found


def _read(source: str, start: int, *, start_only: bool) -> Element | None:
    """The element whose start tag is at ``start``, read by html.parser (the start tag only, or all of it).

    Read from a piece of ``source`` that starts there and doubles in length until the element ends in it
    while html.parser is still being fed (what it reports then is what it reports reading all of ``source``),
    then from all the rest: each element costs time in its own length, not in the length of the source after
    it. A start tag only is taken from the first piece whenever html.parser finds one in it."""
    size = _START_TAG
    while True:
        whole = start + size >= len(source)
        reader = _One(source[start:] if whole else source[start : start + size], start_only=start_only)
        try:
            reader.read()
        except _Found:
            reader.ended = True
        if reader.found and (whole or (start_only and size == _START_TAG) or (reader.ended and not reader.closing)):
            break
        if whole:
            return None
        size *= 2
    for element in reader.found:
        element.source = source
        element.start, element.content = element.start + start, element.content + start
        element.content_end, element.end = element.content_end + start, element.end + start
    return reader.found[0]


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



# The HTML standard's tokenizer, for where each tag is: a tag's name, its attributes (a quoted value may hold
# `>`), the ends of comments (`-->`, `--!>`, `<!-->`) and of the bogus comments of `<!`, `<?` and `</` but a
# letter (a CDATA section or a doctype ends at its first `>` in HTML). Possessive quantifiers: no backtracking,
# so one pass over each tag. Where a tag or comment has no end, a browser reads the rest of the document into
# it: so does the last alternative, and nothing after it is a tag.
_S = "\t\n\f\r "


def _run(chars: str, guard: str = "") -> str:
    """Any number of characters of the class ``chars``, each after the lookahead ``guard`` (if any), possessive."""
    return f"(?:{guard}{chars})*+" if guard else f"{chars}*+"


def _attribute(guard: str = "", first: str = "") -> str:
    """The pattern of one attribute of a start tag with the space before it: a name (its first character after the
    lookahead ``first``), then ``=`` and a value (in double or single quotes, or bare) or no value; each of its
    characters after the lookahead ``guard``."""
    name = rf"{first}{guard}[^{_S}/>]{_run(f'[^{_S}/>=]', guard)}"
    quoted = rf""""{_run('[^"]', guard)}"|'{_run("[^']", guard)}'"""
    value = rf"""[{_S}]*+=[{_S}]*+(?:{quoted}|(?!["']){_run(f'[^{_S}>]', guard)})"""
    return rf"[{_S}/]*+{name}(?:{value}|(?![{_S}]*+=))"


_TAG_ATTRIBUTE = re.compile(
    rf"""[{_S}/]*+([^{_S}/>][^{_S}/>=]*+)([{_S}]*+=[{_S}]*+(?:"([^"]*+)"|'([^']*+)'|(?!["'])([^{_S}>]*+)))?+"""
)
_SCRIPT_END = re.compile(rf"</script(?=[{_S}/>])[^>]*+>|</script$", re.I)


@dataclass(frozen=True)
class Tag:
    """A tag as a browser's tokenizer reads it, ``source[start:end]``; ``closing`` for an end tag."""

    name: str  # in lower case
    attrs: list[tuple[str, str | None]]  # names in lower case, values with character references resolved
    closing: bool
    start: int
    end: int


def tags(source: str, *, names: Collection[str] | None = None, words: Collection[str] = ()) -> Iterator[Tag]:
    """Each tag of ``source`` in order, as a browser's tokenizer finds them (comments and their like skipped), in
    linear time. With ``names``, only the tags of those names, those with an attribute named ``on…`` and those
    whose attributes hold one of ``words`` (in any case): the regular expression engine passes over the others
    without a step of Python, which makes a check of a whole page fast. A script's text is raw (no tag in it):
    its end tag follows its start tag, the text between them. Where a tag or comment never ends, a browser reads
    the rest as part of it: no tag after."""
    scan = _scanner(None if names is None else frozenset(n.lower() for n in names), frozenset(words))
    at = 0
    while at < len(source) and (found := scan.match(source, at)) is not None and found.end() > at:
        at = found.end()
        if found.group("unended") is not None:
            return
        if found.group("tag") is None:
            continue  # the end of the source
        name, closing, written = found.group("tag").lower(), bool(found.group("closing")), found.group("attrs")
        attrs = [
            (m.group(1).lower(), None if m.group(2) is None else unescape(m.group(3) or m.group(4) or m.group(5) or ""))
            for m in _TAG_ATTRIBUTE.finditer(written)
        ]  # fmt: skip
        yield Tag(name, attrs, closing, found.start("tag") - 1 - closing, at)
        if name == "script" and not closing:
            if (end := _SCRIPT_END.search(source, at)) is None:
                return  # a script without its end tag: the rest is its text
            yield Tag("script", [], True, end.start(), end.end())
            at = end.end()


@functools.lru_cache(maxsize=8)
def _scanner(names: frozenset[str] | None, words: frozenset[str]) -> re.Pattern[str]:
    """What :func:`tags` matches from where it is: what it passes over, then the next tag it reads (or the end)."""
    comment = r"<!--(?:-?>|.*?--!?>)|<(?:!|\?|/(?![A-Za-z]))[^>]*+>"
    tag = rf"<(?P<closing>/?)(?P<tag>[A-Za-z][^{_S}/>]*+)(?P<attrs>(?:{_attribute()})*+)[{_S}/]*+>"
    unended = r"(?P<unended><(?:[A-Za-z!?]|/[^>]).*)"
    passed = [r"[^<]++", comment, r"<(?![A-Za-z!?/])"]
    if names is not None:  # a tag of another name, with no attribute on… and none of the words
        guard = f"(?!(?i:{'|'.join(re.escape(w) for w in sorted(words))}))" if words else ""
        other = "|".join(re.escape(n) for n in sorted(names)) or "(?!)"
        attribute = _attribute(guard, first="(?!(?i:on))")
        passed.append(rf"</?(?!(?i:{other})[{_S}/>])[A-Za-z][^{_S}/>]*+(?:{attribute})*+[{_S}/]*+>")
    return re.compile(rf"(?:{'|'.join(passed)})*+(?:{tag}|{unended})?", re.S)
