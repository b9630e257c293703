"""Chinese text wrapped over lines: which line breaks a browser would show as a stray space.

A browser shows a newline inside a paragraph as a space; between two Chinese characters that
is a space in the middle of a sentence. :func:`joins` says whether a break between two
characters should go (the site plugin ``examples-cjk``, ``site/cjk.py``, applies it to the pages' HTML);
:func:`unwrap` applies it to the lines of a short Markdown text, an example's note.
"""

from __future__ import annotations

import re

from mkdocs_examples.source.blocks import fenced_lines

# The CJK characters, by Unicode block, each range written once for the engine and its site plugins.
# Han ideographs: CJK Unified Ideographs, Extension A, the compatibility ideographs, and the supplementary and
# tertiary ideographic planes (Extensions B to I and the compatibility supplement: those planes hold nothing else)
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003fffd"
# CJK Symbols and Punctuation (the ideographic comma and full stop, book-title marks), and the Halfwidth and
# Fullwidth Forms (the comma, colon, question mark and parentheses of Chinese text)
PUNCTUATION = "\u3000-\u303f\uff00-\uffef"
KANA = "\u3040-\u30ff"  # Hiragana and Katakana
_CJK = re.compile(f"[{HAN}{PUNCTUATION}{KANA}]")
# Punctuation that Chinese text shares with English (curly quotes, ellipsis, em dash, middle
# dot): joined only next to a CJK character
_SHARED = re.compile("[\u2018\u2019\u201c\u201d\u2026\u2014\u00b7]")


def joins(before: str, after: str) -> bool:
    """Whether a line break between the characters ``before`` and ``after`` should go."""
    cjk = bool(_CJK.match(before)) + bool(_CJK.match(after))
    shared = bool(_SHARED.match(before)) + bool(_SHARED.match(after))
    return cjk >= 1 and cjk + shared == 2


def unwrap(markdown: str) -> str:
    """``markdown`` with each line break inside a paragraph between two CJK characters removed, with the
    indentation after it; paragraphs, list items and fenced code keep their lines."""
    lines = markdown.split("\n")
    code = fenced_lines(markdown)
    out = [lines[0]]
    for index, line in enumerate(lines[1:], start=1):
        previous, stripped = out[-1].rstrip(), line.lstrip()
        if (
            index not in code and index - 1 not in code and previous and stripped
            and not stripped.startswith(("- ", "* ", "+ ", "#", ">")) and joins(previous[-1], stripped[0])
        ):  # fmt: skip
            out[-1] = previous + stripped
            continue
        out.append(line)
    return "\n".join(out)
