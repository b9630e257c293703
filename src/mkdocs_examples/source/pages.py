"""The pages, as plain files: links that must not be among them, and a title as a reader sees it. (Which pages a
MkDocs build has, and their titles, are the adapter's: mkdocs/pages.py.)"""

from __future__ import annotations

import os
import re
from pathlib import Path

from mkdocs_examples.results import SiteError

_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(?<!\w)(\*\*|__|\*|_)(?=\S)|(?<=\S)(\*\*|__|\*|_)(?!\w)")


def refuse_links(docs: Path) -> None:
    """Stop the build if a file or folder of the pages is a symbolic link: MkDocs publishes what a link
    points to (``/proc/self/environ``, ``~/.ssh/id_rsa``), and a pull request can add one."""
    links = []
    for top, folders, files in os.walk(docs):
        links += [Path(top, name) for name in [*folders, *files] if Path(top, name).is_symlink()]
    if links:
        listed = "; ".join(f"{link.relative_to(docs.parent)} -> {os.readlink(link)}" for link in links[:10])
        raise SiteError(
            f"{len(links)} symbolic link(s) among the pages, whose targets the site would publish: {listed}. "
            "Put the file itself there instead of a link to it"
        )


def plain(title: str) -> str:
    """A page's title, written in Markdown, as the text a reader sees: `` `torch.cat` `` is torch.cat,
    ``[text](url)`` is text, ``**bold**`` is bold (the inline Markdown a heading holds)."""
    title = _CODE_SPAN.sub(lambda m: m[2].strip(), title)
    title = _LINK.sub(r"\1", title)
    return _EMPHASIS.sub("", title).strip()
