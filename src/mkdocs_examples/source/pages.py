"""The pages, as plain files: links and bidirectional controls that must not be among them, and a title as a
reader sees it. (Which pages a MkDocs build has, and their titles, are the adapter's: mkdocs/pages.py.)"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs_examples.results import SiteError
from mkdocs_examples.source import files

_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(?<!\w)(\*\*|__|\*|_)(?=\S)|(?<=\S)(\*\*|__|\*|_)(?!\w)")


def refuse_bidi(docs: Path) -> None:
    """Stop the build if a page (``*.md``) holds a bidirectional control: its text, and the code it quotes, would
    show in another order than it is written, to a reviewer of the pull request as to a reader (Trojan Source)."""
    found = []
    for page in sorted(docs.rglob("*.md")):
        if where := files.first_of(page.read_text(encoding="utf-8", errors="replace"), files.BIDI):
            found.append(f"{page.relative_to(docs.parent)}:{where[0]}: {files.named(where[1])}")
    if found:
        raise SiteError(
            f"{len(found)} page(s) hold a bidirectional control, which shows text in another order than it is "
            f"written: {'; '.join(found[:10])}. Remove it (Markdown needs none)"
        )


def plain(title: str) -> str:
    """A page's title, written in Markdown, as the text a reader sees: `` `torch.cat` `` is torch.cat,
    ``[text](url)`` is text, ``**bold**`` is bold (the inline Markdown a heading holds)."""
    title = _CODE_SPAN.sub(lambda m: m[2].strip(), title)
    title = _LINK.sub(r"\1", title)
    return _EMPHASIS.sub("", title).strip()
