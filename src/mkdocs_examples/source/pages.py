"""The pages MkDocs builds, as the engine reads them: their example blocks, and links that must not be there."""

from __future__ import annotations

import os
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import InclusionLevel, get_files
from mkdocs.utils.meta import get_data

from mkdocs_examples.source.blocks import Block, fenced_lines, find_blocks

_TITLE = re.compile(r"# +(.+?) *#*$")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(?<!\w)(\*\*|__|\*|_)(?=\S)|(?<=\S)(\*\*|__|\*|_)(?!\w)")


def read_pages(config: MkDocsConfig, *, serving: bool) -> dict[str, tuple[str, list[Block]]]:
    """The pages that embed examples, by ``src_uri``: each one's title and blocks. As MkDocs finds them:
    ``exclude_docs`` left out, and ``draft_docs`` too except under `mkdocs serve` (which shows drafts)."""
    pages = {}
    wanted = InclusionLevel.is_in_serve if serving else InclusionLevel.is_included
    for file in sorted(get_files(config).documentation_pages(inclusion=wanted), key=lambda f: f.src_uri):
        markdown = Path(file.abs_src_path or "").read_text(encoding="utf-8")
        if blocks := find_blocks(markdown):
            pages[file.src_uri] = (title_of(markdown, Path(file.src_uri).stem), blocks)
    return pages


def title_of(markdown: str, fallback: str) -> str:
    """A page's title as MkDocs gives it, as the error index, the changes page and notebook views name the
    page: its front matter's ``title``, else its first level-one heading outside front matter and fenced
    code (a YAML comment or a Python comment starts with ``# `` too), else ``fallback``."""
    body, meta = get_data(markdown)
    if isinstance(meta.get("title"), str) and meta["title"].strip():
        return meta["title"].strip()
    code = fenced_lines(body)
    for index, line in enumerate(body.splitlines()):
        if index not in code and (found := _TITLE.match(line)):
            return found[1].strip()
    return fallback


def refuse_links(docs: Path) -> None:
    """Stop the build if a file or folder of the pages is a symbolic link: MkDocs publishes what a link
    points to (``/proc/self/environ``, ``~/.ssh/id_rsa``), and a pull request can add one."""
    links = []
    for top, folders, files in os.walk(docs):
        links += [Path(top, name) for name in [*folders, *files] if Path(top, name).is_symlink()]
    if links:
        listed = "; ".join(f"{link.relative_to(docs.parent)} -> {os.readlink(link)}" for link in links[:10])
        raise PluginError(
            f"{len(links)} symbolic link(s) among the pages, whose targets the site would publish: {listed}. "
            "Put the file itself there instead of a link to it"
        )


def plain(title: str) -> str:
    """A page's title, written in Markdown, as the text a reader sees: `` `torch.cat` `` is torch.cat,
    ``[text](url)`` is text, ``**bold**`` is bold (the inline Markdown a heading holds)."""
    title = _CODE_SPAN.sub(lambda m: m[2].strip(), title)
    title = _LINK.sub(r"\1", title)
    return _EMPHASIS.sub("", title).strip()
