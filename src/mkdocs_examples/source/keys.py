"""What a cell's output is keyed by, and how a recorded output's line numbers follow the source.

:func:`cell_keys` is the one key every part uses: the cache, recordings and their staleness,
the picker, the page of changes and the output diff of a pull request. Cell k's key is the
sha256 of

- the key of the cell before it (state flows down a script); before the first cell, the key
  scheme (:data:`SCHEME`), the example's path (tracebacks name it) and the digest of every file
  of the examples folder that is not an example (a helper module or data file it may read);
- the cell's execution tags (:data:`EXECUTION_TAGS`, and ``requires-<module>``), which change what the
  engine does;
- the cell's Python tokens as :mod:`tokenize` reads them: names, numbers and operators by their
  text, strings by their value (adjacent strings, which Python joins, as one), and where
  statements and blocks start and end.

Left out, so that they change no key: comments, blank lines, ``# %% [markdown]`` notes in any
language, line breaks and indentation inside brackets (and the width of a block's indent),
the cell's name and its display tags (``remove-cell``, ``varies`` …), which change what a page
shows of an output, not the output. A changed string, number or name, or a reordered
statement, changes its cell's key and every key after it; editing cell k keeps the keys of
cells 0..k-1. A long string wrapped as two adjacent strings, or written with other quotes, is
the same value and the same key. Python 3.12 splits an f-string into tokens where 3.11 has one:
they are joined back, so that a recording made under either Python keys alike.

A traceback or warning names ``examples/<path>:<line>`` of the source that ran. Once a comment
moves lines, that number would be wrong for the source a page shows: :func:`anchors` ties
each cited line to a token, and :func:`relocate` moves it, and the quoted code line, to where
that token is now.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import io
import re
import tokenize
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from mkdocs_examples.results import CellResult

SCHEME = "tokens-1"  # moves whenever what goes into a key changes; a recording names it
EXECUTION_TAGS = ("raises-exception", "requires-cuda")
_SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
_STRUCTURE = {tokenize.NEWLINE: "\n", tokenize.INDENT: "{", tokenize.DEDENT: "}"}
# Python 3.12's pieces of an f-string (3.14's t-strings too), joined back into one string token
_STARTS = {"FSTRING_START", "TSTRING_START"} & set(tokenize.tok_name.values())


def _tokens(code: str) -> Iterator[tuple[str, tuple[int, int], tuple[int, int]]]:
    """The tokens of ``code`` that run: (text, start, end); :class:`SyntaxError` or
    :class:`tokenize.TokenError` if it does not tokenize."""
    lines = code.splitlines(keepends=True)
    depth, start = 0, (0, 0)
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        name = tokenize.tok_name[token.type]
        if name in _STARTS:
            depth, start = depth + 1, start if depth else token.start
            continue
        if depth:
            if name in ("FSTRING_END", "TSTRING_END"):
                depth -= 1
                if not depth:
                    yield _span(lines, start, token.end), start, token.end
            continue
        if token.type in _SKIPPED:
            continue
        yield _STRUCTURE.get(token.type, token.string), token.start, token.end


_STRING = re.compile(r"^([A-Za-z]{0,2})(['\"])")


def _units(code: str) -> Iterator[tuple[str, tuple[int, int], tuple[int, int]]]:
    """:func:`_tokens`, with each run of adjacent strings (which Python joins into one) as one unit, by value."""
    pending: list[tuple[str, tuple[int, int], tuple[int, int]]] = []
    for text, start, end in _tokens(code):
        if _STRING.match(text):
            pending.append((text, start, end))
            continue
        if pending:
            yield _joined([t for t, _, _ in pending]), pending[0][1], pending[-1][2]
            pending = []
        yield text, start, end
    if pending:
        yield _joined([t for t, _, _ in pending]), pending[0][1], pending[-1][2]


def _joined(texts: list[str]) -> str:
    """Adjacent string literals by the value Python makes of them: ``'ab'`` for ``"a" 'b'``; an f-string's
    pieces by their text with escapes read, a plain piece beside them with its braces doubled, as Python would
    read it inside the f-string; their texts as written where a piece cannot be read (3.12's nested quotes)."""
    kinds, values = set(), []
    for text in texts:
        match = _STRING.match(text)
        assert match
        prefix = match[1].lower()
        kind = "b" if "b" in prefix else "t" if "t" in prefix else "f" if "f" in prefix else "s"
        literal = ("r" if "r" in prefix else "") + ("b" if kind == "b" else "") + text[len(prefix) :]
        try:
            value = ast.literal_eval(literal)
        except (SyntaxError, ValueError):
            return "\0".join(texts)
        kinds.add(kind)
        values.append((kind, value))
    if kinds == {"b"}:
        return "b" + repr(b"".join(v for _, v in values))
    if len(kinds) == 1:
        return kinds.pop() + repr("".join(v for _, v in values))
    if kinds <= {"s", "f"}:
        return "f" + repr("".join(v if k == "f" else v.replace("{", "{{").replace("}", "}}") for k, v in values))
    return "\0".join(texts)  # bytes beside text, or a t-string beside others: a SyntaxError where it runs


def _span(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    if start[0] == end[0]:
        return lines[start[0] - 1][start[1] : end[1]]
    return lines[start[0] - 1][start[1] :] + "".join(lines[start[0] : end[0] - 1]) + lines[end[0] - 1][: end[1]]


@functools.lru_cache(maxsize=4096)  # `serve` reads every example again on each rebuild; most cells are as they were
def code_digest(code: str) -> str:
    """The digest of what ``code`` runs: its tokens, or its text if it does not tokenize."""
    digest = hashlib.sha256()
    try:
        for text, _, _ in _units(code):
            digest.update(text.encode() + b"\0")
    except (SyntaxError, tokenize.TokenError):
        digest = hashlib.sha256(b"untokenized\0" + code.encode())
    return digest.hexdigest()


def support_digest(root: Path) -> str:
    """The digest of the files under the examples folder ``root`` that are not examples (helper
    modules ``_*.py``, data files), which any example may read; "" where there are none."""
    digest, found = hashlib.sha256(), False
    if root.is_dir():
        for file in sorted(root.rglob("*")):
            parts = file.relative_to(root).parts
            if any(p.startswith(".") or p == "__pycache__" for p in parts) or file.is_symlink() or not file.is_file():
                continue  # a link is never read: the build refuses it (source/files.py)
            if file.suffix == ".py" and not file.name.startswith("_"):
                continue  # an example: its own key covers it
            if is_translation(file):
                continue  # its comments in another language (source/comments.py): never run
            digest.update("/".join(parts).encode() + b"\0" + hashlib.sha256(file.read_bytes()).digest())
            found = True
    return digest.hexdigest() if found else ""


def cell_keys(path: str, cells: Iterable[tuple[str, Iterable[str]]], support: str = "") -> tuple[str, ...]:
    """The key of each cell of the example ``path``, from each cell's (code, tags), in order; see the module."""
    key = hashlib.sha256(f"{SCHEME}\0{path}\0{support}".encode()).hexdigest()
    keys = []
    for code, tags in cells:
        tags = tuple(tags)
        ran = ",".join([*(tag for tag in EXECUTION_TAGS if tag in tags),
                        *sorted(tag for tag in tags if tag.startswith("requires-") and tag not in EXECUTION_TAGS)])
        key = hashlib.sha256(f"{key}\0{ran}\0{code_digest(code)}".encode()).hexdigest()
        keys.append(key)
    return tuple(keys)


def held(ran: Sequence[str], now: Sequence[str]) -> int:
    """How many cells, from the first, have the same key in ``ran`` (the keys a recording ran) as in ``now`` (the
    example's): a key chains through the cells before it, so the cells that match are the first ones."""
    return next((i for i, (a, b) in enumerate(zip(ran, now, strict=False)) if a != b), min(len(ran), len(now)))


# --- lines --------------------------------------------------------------------------


def _cited(display: str) -> re.Pattern[str]:
    """A line of ``display`` named in a traceback (``File "x.py", line 12``) or a warning (``x.py:12:``)."""
    name = re.escape(display)
    return re.compile(rf'(?P<a>File "{name}", line )(?P<n>\d+)|(?P<b>(?<![\w/.]){name}:)(?P<m>\d+)(?=:)')


@functools.lru_cache(maxsize=256)  # one example's source is read against each release's recording of it
def _table(source: str) -> list[tuple[int, int]] | None:
    """The (first, last) line of each token of ``source`` that runs; None if it does not tokenize."""
    try:
        return [(start[0], end[0]) for _, start, end in _units(source)]
    except (SyntaxError, tokenize.TokenError):
        return None


MAX_ANCHORS = 10_000  # cited lines kept per result: the schemas' bound (result.schema.json, $defs/anchors)


def anchors(
    source: str, display: str, texts: Iterable[str | None], lines: Iterable[int | None] = ()
) -> dict[str, dict[str, int]]:
    """Each line of ``source`` cited in ``texts`` (and each of ``lines``), tied to the token that covers it:
    ``{"12": {"token": index, "into": lines into it}}``; a line no token covers is left out, and past
    :data:`MAX_ANCHORS` lines, the rest. Linear in the texts and the source, whatever an output cites."""
    pattern = _cited(display)
    cited = {int(m["n"] or m["m"]) for text in texts if text for m in pattern.finditer(text)}
    cited |= {line for line in lines if line}
    covering = _covering(source) if cited else {}
    found: dict[str, dict[str, int]] = {}
    for line in sorted(cited):
        if line in covering and len(found) < MAX_ANCHORS:
            index, first = covering[line]
            found[str(line)] = {"token": index, "into": line - first}
    return found


@functools.lru_cache(maxsize=256)
def _covering(source: str) -> dict[int, tuple[int, int]]:
    """Each line of ``source`` that a token covers: the first such token's index and first line."""
    covering: dict[int, tuple[int, int]] = {}
    for index, (first, last) in enumerate(_table(source) or ()):
        for line in range(first, last + 1):
            covering.setdefault(line, (index, first))
    return covering


class Relocation:
    """Moves the lines ``anchors`` ties to tokens to where those tokens are in ``source`` (the same tokens)."""

    def __init__(self, source: str, display: str, anchors: dict[str, dict[str, int]]) -> None:
        self.lines = source.splitlines()
        self.pattern = _cited(display)
        table = (_table(source) or []) if anchors else []
        self.moved = {int(old): table[a["token"]][0] + a["into"]
                      for old, a in anchors.items() if a["token"] < len(table)}  # fmt: skip

    def line(self, old: int | None) -> int | None:
        return None if old is None else self.moved.get(old, old)

    def cell(self, cell: CellResult) -> CellResult:
        """``cell`` with its output and traceback citing the lines as they are now."""
        return replace(cell, output=self.text(cell.output) or "", traceback=self.text(cell.traceback))

    def text(self, text: str | None) -> str | None:
        """``text`` with each cited line renumbered, and the code line a traceback quotes under it taken from
        the source as it is now (a comment added to it shows); its ``^^^`` marks are kept only where the code
        they point into is unchanged."""
        if not text or not self.moved:
            return text
        out = text.splitlines(keepends=True)
        quote = None  # the index of a traceback's quoted code line to refresh, and its new line
        for i, line in enumerate(out):
            if quote and i == quote[0]:
                out[i] = self._quote(line, quote[1], out, i)
                quote = None
                continue
            match = self.pattern.search(line)
            if not match:
                continue
            old = int(match["n"] or match["m"])
            new = self.moved.get(old, old)
            group = "n" if match["n"] else "m"
            out[i] = line[: match.start(group)] + str(new) + line[match.end(group) :]
            # a frame of Python's (`, in <module>`) quotes its line under it; TorchScript's `File "x.py",
            # line 12` quotes its source from a line before the one it names
            if match["a"] and old in self.moved and line[match.end(group) :].startswith(", in "):
                quote = (i + 1, new)
        return "".join(out)

    def _quote(self, line: str, new: int, out: list[str], i: int) -> str:
        if not 0 < new <= len(self.lines) or not line.startswith("    "):
            return line
        indent = line[: len(line) - len(line.lstrip())]
        old_code, code = line.strip(), self.lines[new - 1].strip()
        ending = "\n" if line.endswith("\n") else ""
        if i + 1 < len(out) and set(out[i + 1].strip()) <= {"^", "~"} and out[i + 1].strip():
            marks = out[i + 1]
            reach = len(marks.rstrip()) - len(indent)
            if old_code[:reach] != code[:reach]:
                out[i + 1] = ""  # the code it pointed into changed its layout: no marks rather than wrong ones
        return indent + code + ending


# examples/<name>.<lang>.yml beside examples/<name>.py: that example's comments in another language (source/comments.py)
TRANSLATION = re.compile(r"^(?P<example>.+)\.(?P<lang>[a-z]{2,3}(-[A-Za-z0-9]{2,8})*)\.yml$")


def is_translation(file: Path) -> bool:
    """Whether ``file`` is the translation of an example's comments (``<name>.<lang>.yml`` beside ``<name>.py``):
    not a file examples read, so no part of any key (source/keys.py: support_digest)."""
    match = TRANSLATION.match(file.name)
    return bool(match) and file.with_name(f"{match['example']}.py").is_file()  # type: ignore[index]
