"""Write the site beside its folder, then swap it in: a failed or interrupted build leaves the last site whole.

MkDocs cleans ``site_dir`` and writes page after page into it. A build that stops halfway
(an example that fails late, a warning under ``strict``, Ctrl-C, a full disk) leaves a site
with half its pages, and the last good one is gone. With staging, the build writes into
``.<site>.building-<pid>`` beside ``site_dir`` (same file system), and only a build that
ended well is swapped in, once MkDocs has returned from it (a ``strict`` build fails after
its last event): with one atomic ``renameat2(RENAME_EXCHANGE)`` on Linux, with two renames
elsewhere. Anything else removes the staging folder and leaves ``site_dir`` as it was.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import sys
from pathlib import Path

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


class Staging:
    """One build's staging folder for ``site``; ``commit()`` swaps it in, ``discard()`` removes it."""

    def __init__(self, site: Path) -> None:
        self.site = site.resolve()
        self.folder = self.site.with_name(f".{self.site.name}.building-{os.getpid()}")

    def start(self) -> Path:
        """Make the (empty) staging folder, removing what builds that died left behind; its path."""
        for old in self.site.parent.glob(f".{self.site.name}.building-*"):
            pid = old.name.rsplit("-", 1)[1]
            if not pid.isdigit() or not _alive(int(pid)):
                shutil.rmtree(old, ignore_errors=True)
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        return self.folder

    def commit(self) -> None:
        """The staged site becomes ``site``; the old one is removed."""
        if not self.site.exists():
            os.rename(self.folder, self.site)
            return
        if not _exchange(self.folder, self.site):
            old = self.site.with_name(f".{self.site.name}.old-{os.getpid()}")
            os.rename(self.site, old)
            os.rename(self.folder, self.site)
            self.folder = old
        shutil.rmtree(self.folder, ignore_errors=True)  # now the old site

    def discard(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step (Linux 3.15+); False where that cannot be done."""
    if sys.platform != "linux":
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    done = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return done == 0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True
