"""Reading a Python traceback as a cell shows it: the line that names the exception, after its frames.

The error index names each error by that line, and a cell's ``raises=`` claim is checked against it
(execute/raises.py): one reading for both.
"""

from __future__ import annotations

import re

_FRAME = re.compile(r'^  File "')
_HEADER = "Traceback (most recent call last):"  # at the start of a line: not the "Original Traceback" of a message
TYPE_ALONE = re.compile(r"^[A-Za-z_][\w.]*:$")  # a type whose message starts on the next line (TorchScript's errors)


def exception_line(traceback: str) -> str | None:
    """The line that names the exception (``Type: message``), after the last frame of ``traceback``."""
    rest = message_lines(traceback)
    if not rest:
        return None
    if TYPE_ALONE.match(rest[0].strip()) and len(rest) > 1:
        return f"{rest[0].strip()} {rest[1].strip()}"
    return rest[0].strip()


def message_lines(traceback: str, *, innermost: bool = False) -> list[str]:
    """The non-empty lines after the frames of ``traceback``'s last traceback: the exception and its message.

    A message may hold a traceback of its own (``Caught RuntimeError in DataLoader worker process 0.``, then
    the worker's ``Original Traceback``): the exception raised is the line after the frames that follow the
    last header at the start of a line. ``innermost``: the line after the last frame of all instead, the
    original error such a message carries."""
    lines = traceback.rstrip("\n").splitlines()
    header = max((i for i, line in enumerate(lines) if line == _HEADER), default=-1)
    if innermost or header < 0:
        last = max((i for i, line in enumerate(lines) if _FRAME.match(line)), default=-1)
        i = last + 1
        while last >= 0 and i < len(lines) and lines[i].startswith("    "):  # the frame's code and carets
            i += 1
    else:
        i = header + 1
        while i < len(lines) and lines[i].startswith(" "):  # its frames, their code and carets
            i += 1
    return [line for line in lines[i:] if line.strip()]
