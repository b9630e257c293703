"""Remove a folder an example could write, at any depth, in bounded time, and say why not.

An example may leave a tree thousands of folders deep (``shutil.rmtree`` recurses, and raises
``RecursionError`` past about a thousand), folders it made unreadable or unwritable (``chmod
000``), or more files than a build can wait for. :func:`remove` walks the tree with one open
descriptor at a time, from a folder to the next one down by name and back up by ``..``, checking
at each step up that it is the folder it came from (device and inode), as GNU ``rm`` does: a
folder moved meanwhile stops the walk rather than lead it out of the tree. It never crosses into
another file system, and never follows a link. It returns why it could not remove everything
(the caller names the example), never raises.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

WITHIN = 60.0  # seconds a removal may take: an example's folder holds at most max_files entries on Linux
_CHECK = 256  # entries between two looks at the clock
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass
class Removed:
    """What :func:`remove` removed, and why it stopped short (None: all of it)."""

    entries: int = 0  # files, links and folders, the top one included
    size: int = 0  # bytes of the regular files among them
    failed: str | None = None
    folders: list[str] = field(default_factory=list)  # where the walk was when it failed, outermost first


def remove(path: Path | str, *, within: float | None = None) -> Removed:
    """Remove ``path`` and everything beneath it, in at most ``within`` seconds (default :data:`WITHIN`); a
    missing path is removed."""
    done = Removed()
    within = WITHIN if within is None else within
    path = os.fspath(path)
    parent, name = os.path.split(os.path.abspath(path))
    try:
        top = os.open(parent, _DIRECTORY)
    except OSError as error:
        done.failed = f"its parent folder cannot be opened: {error.strerror}"
        return done
    try:
        _walk(top, name, done, time.monotonic() + within, within)
    except OSError as error:
        below = done.folders[1:]
        where = os.path.join(path, *below) if len(below) <= 3 else os.path.join(path, "…", *below[-2:])
        deep = f" ({len(below)} folders down)" if len(below) > 3 else ""
        done.failed = f"{error.strerror or error}: {where}{deep}"
    finally:
        os.close(top)
    return done


def _walk(top: int, name: str, done: Removed, deadline: float, within: float) -> None:
    """Remove ``name`` of the folder ``top``; OSError, with ``done.folders`` where it stopped."""
    if not _unlink(top, name, done):
        return
    current = _down(top, name, None)
    # The folders from ``name`` down to the current one: (name, device, inode, the names left in it)
    stack = [(name, *_identity(current), iter(os.listdir(current)))]
    done.folders = [name]
    seen = 0
    try:
        while stack:
            entries = stack[-1][3]
            for entry in entries:
                seen += 1
                if seen % _CHECK == 0 and time.monotonic() > deadline:
                    raise TimeoutError(errno.ETIME, f"not removed within {within:g} s")
                if _unlink(current, entry, done):  # a folder: go down into it
                    below = _down(current, entry, stack[-1][1])
                    os.close(current)
                    current = below
                    stack.append((entry, *_identity(current), iter(os.listdir(current))))
                    done.folders.append(entry)
                    break
            else:  # this folder is empty: up, and remove it there
                finished = stack.pop()
                done.folders.pop()
                above = os.open("..", _DIRECTORY, dir_fd=current) if stack else top
                os.close(current)
                current = above
                if stack and _identity(current) != stack[-1][1:3]:
                    raise OSError(errno.ESTALE, f"the folder above {finished[0]} moved while it was removed")
                os.rmdir(finished[0], dir_fd=current)
                done.entries += 1
                if not stack:
                    current = -1
    finally:
        if current not in (-1, top):
            os.close(current)


def _identity(fd: int) -> tuple[int, int]:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


def _unlink(folder: int, name: str, done: Removed) -> bool:
    """Remove the entry ``name`` of ``folder`` unless it is a folder; True if it is one."""
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return False
    if stat.S_ISDIR(info.st_mode):
        return True
    try:
        os.unlink(name, dir_fd=folder)
    except PermissionError:  # a folder it cannot write to: made writable (it is the build's user's)
        os.chmod(folder, 0o700)
        os.unlink(name, dir_fd=folder)
    except FileNotFoundError:
        return False
    done.entries += 1
    done.size += info.st_size if stat.S_ISREG(info.st_mode) else 0
    return False


def _down(folder: int, name: str, device: int | None) -> int:
    """The folder ``name`` of ``folder`` opened, readable and writable by its owner; never across a mount."""
    try:
        below = os.open(name, _DIRECTORY, dir_fd=folder)
    except PermissionError:  # chmod 000: the build's user owns it
        os.chmod(name, 0o700, dir_fd=folder)
        below = os.open(name, _DIRECTORY, dir_fd=folder)
    info = os.fstat(below)
    if device is not None and info.st_dev != device:
        os.close(below)
        raise OSError(errno.EXDEV, f"{name} is another file system, mounted there")
    if info.st_mode & 0o700 != 0o700:
        with contextlib.suppress(OSError):
            os.fchmod(below, 0o700)
    return below
