"""Files written whole or not at all: a reader (another build, a `mkdocs serve` rebuild, a second process
sharing a cache) sees the old file or the new one, never half of one."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8): into a temporary file of the same folder, then renamed over ``path``,
    which is atomic within one file system. The temporary file's name starts with a dot and ends with ``.tmp``, so
    that no ``*.json`` listing of the folder takes it for an entry; it is removed if writing fails."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
