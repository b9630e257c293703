"""A contributor's files as they are: never a link, and never more than a file of its kind may hold.

A pull request can add a symbolic link where the build expects a file (``examples/x.zh.yml`` to
``~/.aws/credentials`` or ``/dev/zero``, a recording to ``/proc/self/environ``): what it points
to would be read, published or read without end.

- :func:`refuse_links`: no symbolic link anywhere under a folder the build reads (the pages,
  the examples, the recordings), or the build stops, naming each link.
- :func:`read_regular`: a file's bytes only if it is a regular file itself (not a link, a device
  or a pipe), and at most ``cap`` of them; :class:`Refused` otherwise, before reading anything
  else than what the cap allows.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from mkdocs_examples.results import SiteError


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


def _size(size: int) -> str:
    return f"{size / (1 << 20):.0f} MiB" if size >= 1 << 20 else f"{size / 1024:.0f} KiB"
