"""Chinese text wrapped over several lines of Markdown reads as one line (the MkDocs plugin `examples-cjk`).

A line break inside a paragraph stays a newline in the HTML, and a browser shows a newline
as a space: between two Chinese characters that is a stray space in the middle of a
sentence. This plugin adds a Markdown treeprocessor to every page that removes such a line
break, with the indentation around it (an admonition's, a list item's), when the
characters on both sides of it are CJK characters or CJK punctuation. A break next to a
Latin letter, a digit or code keeps its space, as Chinese text wants it there; code
(``<code>``, ``<pre>``, and the code blocks superfences stashes) is never changed, and
neither is anything across the border of a block (two paragraphs, two list items).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree

from markdown import Markdown  # type: ignore[import-untyped]
from markdown.extensions import Extension  # type: ignore[import-untyped]
from markdown.treeprocessors import Treeprocessor  # type: ignore[import-untyped]
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin

from mkdocs_examples.cjk import joins

_BREAK = re.compile(r"[ \t]*\n[ \t]*")
_CODE = {"code", "pre", "kbd", "samp", "script", "style"}
_BLOCKS = {
    "p", "li", "ul", "ol", "dl", "dt", "dd", "div", "blockquote", "details", "summary", "table", "thead",
    "tbody", "tr", "th", "td", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "figure", "figcaption", "section",
}  # fmt: skip


class _Slot:
    """A piece of an element's text (its ``text`` or its ``tail``) in document order."""

    def __init__(self, element: etree.Element, attribute: str, frozen: bool) -> None:
        self.element, self.attribute, self.frozen = element, attribute, frozen

    @property
    def value(self) -> str:
        return getattr(self.element, self.attribute) or ""

    @value.setter
    def value(self, text: str) -> None:
        setattr(self.element, self.attribute, text)


def _slots(element: etree.Element, out: list[_Slot | None]) -> None:
    """``out`` extended with the text of ``element`` and its descendants; None at each block's border."""
    block = element.tag in _BLOCKS
    if block:
        out.append(None)
    out.append(_Slot(element, "text", element.tag in _CODE))
    if element.tag not in _CODE:
        for child in element:
            _slots(child, out)
            out.append(_Slot(child, "tail", False))
    if block:
        out.append(None)


def _runs(slots: list[_Slot | None]) -> list[list[_Slot]]:
    """The slots between block borders: the inline text of one block, in order."""
    runs: list[list[_Slot]] = [[]]
    for slot in slots:
        if slot is None:
            runs.append([])
        else:
            runs[-1].append(slot)
    return [run for run in runs if run]


def _join(run: list[_Slot]) -> None:
    for i, slot in enumerate(run):
        text = slot.value
        if slot.frozen or "\n" not in text:
            continue
        pieces, last = [], 0
        for match in _BREAK.finditer(text):
            before = text[match.start() - 1] if match.start() else _edge(run[:i], last=True)
            after = text[match.end()] if match.end() < len(text) else _edge(run[i + 1 :], last=False)
            if before and after and joins(before, after):
                pieces.append(text[last : match.start()])
                last = match.end()
        if pieces:
            slot.value = "".join(pieces) + text[last:]


def _edge(slots: list[_Slot], *, last: bool) -> str:
    """The last (or first) character of the text in ``slots``; "" when there is none."""
    for slot in reversed(slots) if last else slots:
        if slot.value:
            return slot.value[-1] if last else slot.value[0]
    return ""


class CJKLineBreakProcessor(Treeprocessor):
    def run(self, root: etree.Element) -> None:
        slots: list[_Slot | None] = []
        _slots(root, slots)
        for run in _runs(slots):
            _join(run)


class CJKLineBreaks(Extension):
    """The Markdown extension: registers the treeprocessor after the inline patterns (20)."""

    def extendMarkdown(self, md: Markdown) -> None:
        md.treeprocessors.register(CJKLineBreakProcessor(md), "cjk_line_breaks", 15)


class CJKConfig(Config):
    """No options: the plugin turned on is the extension on every page."""


class CJKPlugin(BasePlugin[CJKConfig]):
    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        if not any(type(e).__name__ == CJKLineBreaks.__name__ for e in config.markdown_extensions):
            config.markdown_extensions.append(CJKLineBreaks())
        return config
