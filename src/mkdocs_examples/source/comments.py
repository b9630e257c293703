"""Comments in the reader's language: one body of code, its comments translated beside it.

An example keeps its code and English comments in ``examples/<path>.py``; the Chinese of its
comments lives in ``examples/<path>.zh.yml``, a mapping a contributor reviews in a pull request::

    # examples/autograd/graph.py: its comments in Chinese, by their English text (make comments)
    shares storage with x: 与 x 共享存储

- A comment is a :mod:`tokenize` COMMENT token of a code cell (never a ``# %%`` marker or a
  note); its text is what follows ``#`` and its spaces. Pragmas (``# noqa``, ``# type:``,
  ``# fmt:``) and comments without a Latin letter stay as written.
- The key is the comment's English text, so a line that moves keeps its translation, and a
  comment written several times (in one example) has one entry, used for each of them.
- :func:`translated` replaces the text of each COMMENT token and nothing else: the code is
  byte-identical, every line where it was, and comments are no part of a cell's key
  (source/keys.py), so a translated example has the keys, recordings and line numbers of the
  original. Pages, downloads, notebook views and the Colab notebooks of a language show it.
- :func:`problems`: a comment without an entry (or with an empty one) and an entry whose English
  no longer appears, each naming its file and line; the plugin logs them as warnings (a strict
  build fails). :func:`template` writes the file again with every comment (missing ones empty,
  outdated ones gone): ``make comments``.
- :func:`refused`: a translation comes from whoever wrote it, and downloads are scripts readers
  run. A file that is not a regular file (a link to a secret, to ``/dev/zero``) or is larger than
  :data:`MAX_TRANSLATION` is never read; one that holds an invisible formatting character (a
  bidirectional control), or a translated comment with a line break or a coding declaration
  (``coding: utf_7`` would make ``+AAo-x = 42`` a line of code), is not used at all, and the
  plugin stops the build (:func:`refuse`). A coding declaration of the example stays as written.
- :func:`in_strings`: English a string holds, which a reader of a download reads as code: the
  comments of a script a cell runs from a triple-quoted string (``subprocess.run([python, "-c",
  code])``), and one-line docstrings. They share the file's entries, and :func:`problems` and
  :func:`template` list them too. Their translation changes a string's value, so a cell's key, and
  the page shows the code that ran, with the outputs recorded for it: only the downloads and the
  Colab notebooks, run by the reader and keyed by nothing, show it (:func:`for_download`). A
  comment continued with ``\\`` becomes one line there; a translation holding ``\\`` or the
  string's quote character, which would change the string's end or escapes, is never used.
- :func:`headed`: the sentences a cell's header gives readers, ``claim=`` and ``alt=``
  (source/cells.py). They share the file's entries too, and :func:`words` gives one in a language.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import yaml  # type: ignore[import-untyped]

from mkdocs_examples import texts, yaml_files
from mkdocs_examples.results import SiteError
from mkdocs_examples.source import files

if TYPE_CHECKING:
    from mkdocs_examples.source.cells import Example

_PRAGMA = re.compile(r"^(noqa|type:|fmt:|pragma|pyright:|mypy:|ruff:|isort:|-\*-)")
_LETTER = re.compile(r"[A-Za-z]")


@dataclass(frozen=True)
class Comment:
    line: int  # in the example's file, 1-based
    column: int  # where its `#` is
    prefix: str  # `#` and the spaces after it, kept
    text: str  # the English, the key of its translation


def _translatable(text: str) -> bool:
    """Whether a comment's ``text`` is prose to translate: not empty, no pragma or coding declaration (which
    mean something to a program, in English), and with a Latin letter."""
    return bool(text) and not _PRAGMA.match(text) and not files.COOKIE.search(text) and bool(_LETTER.search(text))


def comments(example: Example) -> list[Comment]:
    """The translatable comments of ``example``'s code cells, in order (see the module)."""
    return [replace(comment, line=cell.lineno + comment.line - 1) for cell in example.cells
            for comment in _comments(cell.source)]  # fmt: skip


@functools.lru_cache(maxsize=4096)  # `serve` checks every example again on each rebuild; most cells are as they were
def _comments(code: str) -> tuple[Comment, ...]:
    """The translatable comments of one cell's ``code``, each on its line in the cell (1-based)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):  # a cell that shows a SyntaxError: its comments stay
        return ()
    found = []
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        body = token.string[1:]
        text = body.strip()
        if not _translatable(text):
            continue
        prefix = token.string[: len(token.string) - len(body.lstrip())]
        found.append(Comment(token.start[0], token.start[1], prefix, text))
    return tuple(found)


@dataclass(frozen=True)
class InString:
    """English a string of the code holds (:func:`in_strings`): where its text starts and ends in the file."""

    kind: str  # "comment in a string" or "docstring", as messages name it
    line: int  # in the example's file, 1-based
    column: int  # where its text starts: after the `#` and its spaces, or after the opening quotes
    end_line: int  # a comment continued with `\` ends on a later line
    end_column: int  # where its text ends
    text: str  # the English as the string's value holds it (on one line), the key of its translation
    quote: str  # the string's quote character, which its translation must not hold


def in_strings(example: Example) -> list[InString]:
    """The English that ``example``'s code cells hold in strings, in order (see the module)."""
    return [replace(found, line=cell.lineno + found.line - 1, end_line=cell.lineno + found.end_line - 1)
            for cell in example.cells for found in _in_strings(cell.source)]  # fmt: skip


_OPENING = re.compile(r"[uU]?(\"\"\"|'''|\"|')")  # a string's quotes, after a prefix that leaves its value as written


@functools.lru_cache(maxsize=4096)
def _in_strings(code: str) -> tuple[InString, ...]:
    """The comments of scripts in triple-quoted strings, and one-line docstrings, of one cell's ``code``."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
        tree = ast.parse(code)
    except (tokenize.TokenError, SyntaxError, ValueError):
        return ()
    docstrings = {
        (node.body[0].lineno, node.body[0].col_offset)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
        and isinstance(node.body[0].value.value, str)
    }  # fmt: skip
    found: list[InString] = []
    for token in tokens:
        opening = _OPENING.match(token.string) if token.type == tokenize.STRING else None
        if opening is None:  # raw, bytes and f-strings: what they write is not the value a reader reads
            continue
        quotes = opening[1]
        body = token.string[opening.end() : len(token.string) - len(quotes)].split("\n")
        starts = [(token.start[0] + k, token.start[1] + opening.end() if k == 0 else 0) for k in range(len(body))]
        value = ast.literal_eval(token.string)
        if token.start in docstrings:
            text = " ".join(value.split())
            if "\n" not in value.strip() and _LETTER.search(text):  # one line: its translation is one too
                end = (starts[-1][0], starts[-1][1] + len(body[-1]))
                found.append(InString("docstring", *starts[0], *end, text, quotes[0]))
        elif len(quotes) == 3:
            found += _script_comments(value, body, starts, quotes[0])
    return tuple(found)


def _script_comments(value: str, body: list[str], starts: list[tuple[int, int]], quote: str) -> list[InString]:
    """The comments of the script ``value``, where the string's ``body`` lines (beginning at ``starts``) write
    them; a comment the body writes otherwise (with an escape) is not found, and stays as it is."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(value).readline))
    except (tokenize.TokenError, SyntaxError):
        return []
    found, next_line = [], 0
    for token in tokens:
        text = token.string[1:].strip() if token.type == tokenize.COMMENT else ""
        if not _translatable(text):
            continue
        for at in range(next_line, len(body)):
            if (where := _written(body, at, text)) is not None:
                column, end, end_column = where
                found.append(InString("comment in a string", starts[at][0], starts[at][1] + column,
                                      starts[end][0], starts[end][1] + end_column, text, quote))  # fmt: skip
                next_line = end + 1
                break
    return found


def _written(body: list[str], at: int, text: str) -> tuple[int, int, int] | None:
    """Where line ``at`` of ``body`` writes the comment ``text`` up to its end, continued with ``\\`` onto the
    lines after it: the column its text starts at, the line and the column it ends at; None where it does not."""
    for sharp in (i for i, char in enumerate(body[at]) if char == "#"):
        rest = body[at][sharp + 1 :]
        column, joined, end = sharp + 1 + len(rest) - len(rest.lstrip()), rest, at
        while (len(joined) - len(joined.rstrip("\\"))) % 2 and end + 1 < len(body):  # `\` joins the next line
            end += 1
            joined = joined[:-1] + body[end]
        if joined.strip() == text:
            return column, end, len(body[end].rstrip())
    return None


@dataclass(frozen=True)
class Headed:
    """A sentence a cell's header gives readers (``claim=``, ``alt=``): translated in the same file."""

    kind: str  # "claim" or "alt text", as messages name it
    line: int  # its header's line in the example's file
    text: str  # the English, the key of its translation
    column: int = 0


def headed(example: Example) -> list[Headed]:
    """The ``claim=`` and ``alt=`` of ``example``'s cells, in order."""
    found = []
    for cell in example.cells:
        for kind, text in (("claim", cell.claim), ("alt text", cell.alt)):
            if text:
                found.append(Headed(kind, cell.header or cell.lineno, text))
    return found


def words(example: Example, text: str, lang: str) -> str:
    """``text``, a sentence of ``example``'s headers (:func:`headed`), in ``lang`` where its file has it; the
    English otherwise (the build warns of a missing one: :func:`problems`)."""
    if lang == texts.DEFAULT:
        return text
    found = read(example, lang)
    return (found.entries.get(text) if found is not None else None) or text


def file_of(example: Example, lang: str) -> Path:
    """Where the translation of ``example``'s comments into ``lang`` lives: beside it."""
    return example.file.with_name(f"{example.file.stem}.{lang}.yml")


def display_of(example: Example, lang: str) -> str:
    return f"{example.display.removesuffix('.py')}.{lang}.yml"


@dataclass(frozen=True)
class Translation:
    entries: dict[str, str]  # English: the reader's language ("" not written yet)
    lines: dict[str, int]  # English: its line in the file
    errors: tuple[str, ...] = ()  # what is wrong with the file itself
    refused: tuple[str, ...] = ()  # why nothing of the file is used, and the build stops (:func:`refuse`)


# Bytes a translation file may hold: an example's comments, well under the option max_source's 1 MiB of source
MAX_TRANSLATION = 1 << 20

_read: dict[tuple[str, int], Translation] = {}


def read(example: Example, lang: str) -> Translation | None:
    """The translation of ``example``'s comments into ``lang``; None where there is no file."""
    file, name = file_of(example, lang), display_of(example, lang)
    try:
        stamp = (str(file), file.lstat().st_mtime_ns)  # of a link itself, which is refused, never of its target
    except FileNotFoundError:
        return None
    if stamp not in _read:
        _read[stamp] = _load(file, name)
    return _read[stamp]


def _load(file: Path, name: str) -> Translation:
    """The file's translation; one that is ``refused`` where it is not a regular file of at most
    :data:`MAX_TRANSLATION` bytes of UTF-8 (a link to a secret or to ``/dev/zero`` is never read)."""
    try:
        text = files.read_regular(file, MAX_TRANSLATION).decode("utf-8")
    except UnicodeDecodeError as error:
        return Translation({}, {}, refused=(f"{name}: is not UTF-8 text (at byte {error.start}); save it as UTF-8",))
    except OSError as error:  # files.Refused says what to do
        why = error if isinstance(error, files.Refused) else f"cannot be read ({error.strerror})"
        return Translation({}, {}, refused=(f"{name}: {why}",))
    return _parse(text, name)


def _parse(text: str, name: str) -> Translation:
    if found := files.first_format(text):
        line, char = found
        return Translation({}, {}, refused=(f"{name}:{line}: holds the invisible character {files.named(char)}, "
                                            "which hides or reorders text a reviewer reads: remove it",))  # fmt: skip
    try:
        data = yaml_files.loads(text, name)
        lines = yaml_files.key_lines(text, name)
    except ValueError as error:  # refused: nothing of it can be read, and `make comments` must not write over it
        return Translation({}, {}, refused=(str(error),))
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return Translation({}, {}, refused=(f"{name}: must map each English comment to its translation",))
    errors = [f"{name}:{line}: {key!r} is written twice; keep one entry" for key, line in lines.duplicates]
    entries = {}
    for key, value in data.items():
        if not isinstance(key, str) or not isinstance(value, (str, type(None))):
            errors.append(
                f"{name}:{lines.first.get(str(key), 1)}: {key!r}: write the comment and its translation as text"
            )
            continue
        entries[key] = (value or "").strip()
    if refused := [why for key, words in entries.items() if (why := _refused(key, words, name, lines.first))]:
        return Translation({}, {}, refused=tuple(refused))
    return Translation(entries, lines.first, tuple(errors))


def _refused(key: str, words: str, name: str, lines: dict[str, int]) -> str | None:
    """Why translation ``words`` of comment ``key`` must not replace it in a script readers run; None if it may.

    A comment is the rest of its line: a line break in it would start a line of code that never ran
    in the build, and a coding declaration (``coding: utf_7``, on the script's first two lines) would
    make Python decode the whole script otherwise than the build did.
    """
    where = f"{name}:{lines.get(key, 1)}: the translation of {key!r}"
    if found := files.first_of(words, files.LINE_BREAKS):
        return f"{where} holds a line break ({files.named(found[1])}): a comment is one line; write it on one"
    if cookie := files.COOKIE.search(words):
        return (f"{where} declares an encoding ({cookie[0]!r}), which changes how Python reads the whole script: "
                "write it without `coding:` or `coding=`")  # fmt: skip
    return None


def translated(example: Example, lang: str) -> Example:
    """``example`` with its comments in ``lang`` where it has them; the same code, lines and keys."""
    if lang == texts.DEFAULT:
        return example
    found = read(example, lang)
    if found is None or not found.entries:
        return example
    lines = example.source.splitlines(keepends=True)
    changed = False
    for comment in comments(example):
        if words := found.entries.get(comment.text):
            line = lines[comment.line - 1]
            ending = line[len(line.rstrip("\r\n")) :]
            lines[comment.line - 1] = line[: comment.column] + comment.prefix + words + ending
            changed = True
    if not changed:
        return example
    from mkdocs_examples.source.cells import Example as Built

    return Built.from_source(example.path, example.file, "".join(lines), example.folder, example.support)


def for_download(example: Example, lang: str) -> Example:
    """``example`` as a reader of ``lang`` downloads it: :func:`translated`, and the English of its strings
    (:func:`in_strings`) in ``lang`` too, a continued comment on one line.

    Its strings' values change, so its keys do: it is for the files a reader runs (downloads, Colab notebooks),
    whose outputs follow the cells by their order; a page shows the code that ran.
    """
    example = translated(example, lang)
    found = read(example, lang) if lang != texts.DEFAULT else None
    if found is None or not found.entries:
        return example
    lines = example.source.splitlines(keepends=True)
    changed = False
    for english in sorted(in_strings(example), key=lambda s: (s.line, s.column), reverse=True):  # lines above stay
        if (words := found.entries.get(english.text)) and not _breaks_string(words, english):
            last = lines[english.end_line - 1]
            lines[english.line - 1 : english.end_line] = [lines[english.line - 1][: english.column] + words +
                                                          last[english.end_column :]]  # fmt: skip
            changed = True
    if not changed:
        return example
    from mkdocs_examples.source.cells import Example as Built

    return Built.from_source(example.path, example.file, "".join(lines), example.folder, example.support)


def _breaks_string(words: str, english: InString) -> str | None:
    """What in the translation ``words`` of ``english`` would change its string beyond its text, if anything:
    a ``\\`` starts an escape, the string's quote character may end it."""
    return next((char for char in ("\\", english.quote) if char in words), None)


def refuse(examples: Iterable[Example], languages: Iterable[str]) -> None:
    """Stop the build (:class:`SiteError`) if a translation of ``examples`` into one of ``languages`` is refused
    (:func:`refused`): a page, download or notebook of that language would show the English instead."""
    said = [why for example in examples for lang in languages for why in refused(example, lang)]
    if said:
        raise SiteError(f"{len(said)} translation(s) of comments refused, nothing of them is used:\n" + "\n".join(said))


def refused(example: Example, lang: str) -> tuple[str, ...]:
    """Why the translation of ``example``'s comments into ``lang`` is not used at all, each naming its file (and
    line): not a regular file of UTF-8 text (a link), an invisible formatting character, a translated comment
    with a line break or a coding declaration; none where there is no file or it is used."""
    found = read(example, lang)
    return found.refused if found else ()


def problems(example: Example, lang: str) -> list[str]:
    """What keeps ``example``'s comments (and the English of its strings) from being shown in ``lang``, each
    naming a file and line; nothing for a refused file, whose comments would each be listed: :func:`refused`
    says why it is."""
    found, name = read(example, lang), display_of(example, lang)
    if found is not None and found.refused:
        return []
    mine = _everything(example)
    todo = f"run `make comments` to add it to {name}, then write its translation there"
    if found is None:
        if not mine:
            return []
        count = len({c.text for c in mine})
        return [
            f"{example.display}:{mine[0].line}: {count} comment(s) have no {lang} translation: there is no "
            f"{name}; run `make comments` to write it with each comment, then write their translations"
        ]
    said = list(found.errors)
    seen = set()
    for comment in mine:
        what = comment.kind if isinstance(comment, (InString, Headed)) else "comment"
        if isinstance(comment, InString) and (char := _breaks_string(found.entries.get(comment.text, ""), comment)):
            said.append(
                f"{name}:{found.lines.get(comment.text, 1)}: the translation of {comment.text!r} ({what} of "
                f"{example.display}:{comment.line}) holds {char!r}, which would change the string it is in: "
                "write it without"
            )
        if comment.text in seen:
            continue
        seen.add(comment.text)
        if comment.text not in found.entries:
            said.append(f"{example.display}:{comment.line}: {what} {comment.text!r} has no {lang} translation; {todo}")
        elif not found.entries[comment.text]:
            said.append(
                f"{name}:{found.lines.get(comment.text, 1)}: {comment.text!r} ({what} of "
                f"{example.display}:{comment.line}) has no translation yet: write it"
            )
    for key in found.entries:
        if key not in seen:
            said.append(
                f"{name}:{found.lines.get(key, 1)}: {key!r} is no comment of {example.display} (it changed "
                "or went): translate the comment as it is now and remove this entry (`make comments` does)"
            )
    return said


def _everything(example: Example) -> list[Comment | InString | Headed]:
    """The comments of ``example``, the English of its strings and of its headers, in the order of the file."""
    found: list[Comment | InString | Headed] = [*comments(example), *in_strings(example), *headed(example)]
    return sorted(found, key=lambda c: (c.line, c.column))


def template(example: Example, lang: str) -> str | None:
    """The translation file of ``example`` as it should be: each comment (and English of its strings) once, in
    order, with its translation where it has one and empty where not; None where it has no comments."""
    found = read(example, lang)
    have = found.entries if found else {}
    keys = list(dict.fromkeys(c.text for c in _everything(example)))
    if not keys:
        return None
    head = f"# {example.display}: its comments in {lang}, by their English text (`make comments` adds new ones)\n"
    return head + "".join(
        yaml.safe_dump({key: have.get(key, "")}, allow_unicode=True, width=10**6, sort_keys=False) for key in keys
    )
