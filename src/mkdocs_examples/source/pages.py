"""The pages, as plain files: a title as a reader sees it (no symbolic link may be among them: source/files.py).
(Which pages a MkDocs build has, and their titles, are the adapter's: mkdocs/pages.py.)"""

from __future__ import annotations

import re

_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(?<!\w)(\*\*|__|\*|_)(?=\S)|(?<=\S)(\*\*|__|\*|_)(?!\w)")


def plain(title: str) -> str:
    """A page's title, written in Markdown, as the text a reader sees: `` `torch.cat` `` is torch.cat,
    ``[text](url)`` is text, ``**bold**`` is bold (the inline Markdown a heading holds)."""
    title = _CODE_SPAN.sub(lambda m: m[2].strip(), title)
    title = _LINK.sub(r"\1", title)
    return _EMPHASIS.sub("", title).strip()
