"""A contributor's files as they are: no link, no more than a file of its kind holds, text that reads as it runs.

A pull request can add a symbolic link where the build expects a file (``examples/x.zh.yml`` to
``~/.aws/credentials`` or ``/dev/zero``, a recording to ``/proc/self/environ``): what it points
to would be read, published or read without end. And text can look other than it runs: Unicode's
bidirectional controls show code in another order than Python reads it ("Trojan Source"), and a
``coding:`` declaration makes Python read a script's bytes otherwise than the build did.

- :func:`refuse_links`: no symbolic link anywhere under a folder the build reads (the pages,
  the examples, the recordings), or the build stops, naming each link.
- :func:`read_regular`: a file's bytes only if it is a regular file itself (not a link, a device
  or a pipe), and at most ``cap`` of them; :class:`Refused` otherwise, before reading anything
  else than what the cap allows.
- :data:`BIDI`, :data:`LINE_BREAKS`, :func:`first_of`, :func:`first_format`, :func:`named`: the characters
  refused, where they are, and how a message names them.
- :func:`misleading`: where a Python source would run or show otherwise than the build reads it.
"""

from __future__ import annotations

import codecs
import io
import os
import re
import stat
import tokenize
import unicodedata
from pathlib import Path

from mkdocs_examples.results import SiteError

# Unicode's bidirectional controls: embeddings and overrides, isolates, marks, and Arabic's letter mark
BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
# What Python's str.splitlines ends a line at: in one comment, any of them starts another line for some reader
LINE_BREAKS = re.compile("[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
# What str.splitlines ends a line at and Python's tokenizer does not: the build, which splits an example's
# cells with splitlines, would run `# note\x1cimport os` as code, which `python` reads as one comment
OTHER_BREAKS = re.compile("[\v\f\x1c-\x1e\x85\u2028\u2029]")
# A coding declaration (PEP 263), as tokenize finds it in a comment; `coding: utf_7` in a comment is one
COOKIE = re.compile(r"coding[:=][ \t]*([-\w.]+)", re.ASCII)


class Refused(OSError):
    """A file the build does not read: a link, not a regular file, or larger than a file of its kind may be."""


# What the build does with what a link under each folder points to
_LINKED = {
    "pages": "whose targets the site would publish",
    "examples": "which the build would read and run",
    "recordings": "whose targets the site would publish",
}


def refuse_links(folder: Path, what: str) -> None:
    """Stop the build (:class:`SiteError`) if ``folder`` or anything under it is a symbolic link; ``what``:
    the files it holds, ``pages``, ``examples`` or ``recordings``."""
    links = [folder] if folder.is_symlink() else []
    for top, folders, files in os.walk(folder):  # does not descend into a linked folder: it is listed
        links += [Path(top, name) for name in [*folders, *files] if Path(top, name).is_symlink()]
    if links:
        listed = "; ".join(f"{link.relative_to(folder.parent)} -> {os.readlink(link)}" for link in links[:10])
        raise SiteError(
            f"{len(links)} symbolic link(s) among the {what}, {_LINKED[what]}: {listed}. "
            "Put the file itself there instead of a link to it"
        )


def read_regular(file: Path, cap: int) -> bytes:
    """The bytes of ``file`` if it is a regular file of at most ``cap`` bytes; :class:`Refused` if it is a link
    or something else than a regular file (a device, a pipe), which is never read, or larger than ``cap``."""
    try:  # O_NONBLOCK: opening a pipe does not wait for a writer, so it can be refused
        descriptor = os.open(file, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        if os.path.islink(file):
            raise Refused(f"is a symbolic link (to {os.readlink(file)}): put the file itself there") from None
        raise
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise Refused("is not a regular file (a device, a pipe or a socket): put a file there")
        data = handle.read(cap + 1)
    if len(data) > cap:
        raise Refused(f"is larger than a file of its kind may be ({_size(cap)}): it was not read")
    return data


def first_of(text: str, pattern: re.Pattern[str]) -> tuple[int, str] | None:
    """The line (1-based) and the first character of ``text`` that ``pattern`` finds; None if it finds none."""
    match = pattern.search(text)
    return (text.count("\n", 0, match.start()) + 1, match[0]) if match else None


def first_format(text: str) -> tuple[int, str] | None:
    """The line and the first character of ``text`` that is invisible and formats text: Unicode's category Cf,
    which holds the bidirectional controls, zero-width characters and the byte order mark; None if none is."""
    for index, char in enumerate(text):
        if unicodedata.category(char) == "Cf":
            return text.count("\n", 0, index) + 1, char
    return None


# Control characters have no name in Unicode's database: these are their usual ones
_CONTROLS = {"\v": "LINE TABULATION", "\f": "FORM FEED", "\x1c": "FILE SEPARATOR", "\x1d": "GROUP SEPARATOR",
             "\x1e": "RECORD SEPARATOR", "\x85": "NEXT LINE", "\r": "CARRIAGE RETURN", "\n": "LINE FEED"}  # fmt: skip


def named(char: str) -> str:
    """``U+202E (RIGHT-TO-LEFT OVERRIDE)``: a character a message cannot show, by its code point and name."""
    return f"U+{ord(char):04X} ({_CONTROLS.get(char) or unicodedata.name(char, 'unnamed')})"


def misleading(data: bytes, source: str) -> tuple[int | None, str] | None:
    """The line and what to do where the Python source ``data`` (``source`` decoded as UTF-8) would be read or
    shown otherwise than the build reads it; None where it would not.

    - It declares another encoding than UTF-8 (PEP 263, as ``tokenize.detect_encoding`` and Python itself
      find it): ``python`` would decode it with that codec, and ``# coding: utf_7`` turns ``+AAo-`` in a
      comment into a new line of code that the build never ran.
    - It holds a bidirectional control, which shows the code in another order than Python reads it.
    - It holds a character that ends a line for ``str.splitlines`` but not for Python's tokenizer.
    """
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:  # a declaration Python itself refuses (an unknown encoding)
        return error.lineno, f"{error.msg}; declare no encoding (Python reads UTF-8)"
    if codecs.lookup(encoding).name not in ("utf-8", "utf-8-sig"):
        line = next((n for n, text in enumerate(source.splitlines()[:2], start=1) if COOKIE.search(text)), 1)
        return line, (
            f"declares the encoding {encoding!r}, but the build reads examples as UTF-8, so Python would "
            "run other code than the page shows: remove the declaration, or write `# -*- coding: utf-8 -*-`"
        )
    if found := first_of(source, BIDI):
        line, char = found
        return line, (
            f"holds the bidirectional control {named(char)}, which shows the code in another order than "
            "Python reads it: remove it"
        )
    if found := first_of(source, OTHER_BREAKS):
        line, char = found
        return line, (
            f"holds {named(char)}, which ends a line for the build but not for Python, so a page could show "
            "as code what Python reads as a comment, or the other way round: remove it, or write it as an "
            "escape in a string"
        )
    return None


def _size(size: int) -> str:
    return f"{size / (1 << 20):.0f} MiB" if size >= 1 << 20 else f"{size / 1024:.0f} KiB"
