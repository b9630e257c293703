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
"""

from __future__ import annotations

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
        if not text or _PRAGMA.match(text) or files.COOKIE.search(text) or not _LETTER.search(text):
            continue  # a pragma or a coding declaration means something to a program, in English
        prefix = token.string[: len(token.string) - len(body.lstrip())]
        found.append(Comment(token.start[0], token.start[1], prefix, text))
    return tuple(found)


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
    except ValueError as error:
        return Translation({}, {}, (str(error),))
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return Translation({}, {}, (f"{name}: must map each English comment to its translation",))
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
    """What keeps ``example``'s comments from being shown in ``lang``, each naming a file and line; nothing for a
    refused file, whose comments would each be listed: :func:`refused` says why it is."""
    found, name = read(example, lang), display_of(example, lang)
    if found is not None and found.refused:
        return []
    mine = comments(example)
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
        if comment.text in seen:
            continue
        seen.add(comment.text)
        if comment.text not in found.entries:
            said.append(f"{example.display}:{comment.line}: comment {comment.text!r} has no {lang} translation; {todo}")
        elif not found.entries[comment.text]:
            said.append(
                f"{name}:{found.lines.get(comment.text, 1)}: {comment.text!r} (comment of "
                f"{example.display}:{comment.line}) has no translation yet: write it"
            )
    for key in found.entries:
        if key not in seen:
            said.append(
                f"{name}:{found.lines.get(key, 1)}: {key!r} is no comment of {example.display} (it changed "
                "or went): translate the comment as it is now and remove this entry (`make comments` does)"
            )
    return said


def template(example: Example, lang: str) -> str | None:
    """The translation file of ``example`` as it should be: each comment once, in order, with its translation
    where it has one and empty where not; None where it has no comments."""
    found = read(example, lang)
    have = found.entries if found else {}
    keys = list(dict.fromkeys(c.text for c in comments(example)))
    if not keys:
        return None
    head = f"# {example.display}: its comments in {lang}, by their English text (`make comments` adds new ones)\n"
    return head + "".join(
        yaml.safe_dump({key: have.get(key, "")}, allow_unicode=True, width=10**6, sort_keys=False) for key in keys
    )
