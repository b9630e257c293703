"""Make what an example printed safe to show and the same on every machine, in linear time.

What an example prints is input from whoever wrote it: one line of megabytes, a million
short lines, endless escape codes. Every step here is linear in the text's length, and the
text is cut to the option ``max_output`` before the steps that cost most per character.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

# Terminal escape sequences: CSI (colours, cursor moves), OSC (titles, links), and the rest.
# Each alternative starts at an ESC and stops at the next ESC, BEL or final byte: linear.
_ESCAPES = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
# Every other control character becomes a visible mark: C0 as its Control Pictures sign
# (NUL as ␀, BEL as ␇), DEL as ␡, C1 and the bidirectional overrides as U+FFFD
_MARKS = {code: chr(0x2400 + code) for code in range(32) if chr(code) not in "\n\t"}
_MARKS |= {0x7F: "\u2421"} | {
    code: "\ufffd" for code in [*range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
}
# A library's path, up to its last site-packages folder. The lookbehind lets a match start only
# where a path can start (after a space, quote or parenthesis): scanning from every position
# of a long line instead made this quadratic.
_SITE_PACKAGES = re.compile(r"(?<![^\s\"'(])(?:[A-Za-z]:)?[^\s\"'(]*[/\\](?:site|dist)-packages[/\\]")
_STDLIB = re.compile(re.escape(os.path.dirname(os.__file__)) + r"[/\\]")
# The example's own folders for what libraries keep (execute/child/sandbox.py: OWN_FOLDERS), new each run,
# shown as the defaults a reader's machine has: torch.hub's downloads in ~/.cache/torch/hub
READER_FOLDERS = {
    "TORCH_HOME": "~/.cache/torch", "MPLCONFIGDIR": "~/.config/matplotlib", "XDG_CACHE_HOME": "~/.cache",
    "XDG_CONFIG_HOME": "~/.config", "XDG_DATA_HOME": "~/.local/share", "HOME": "~",
}  # fmt: skip
# The head of a line of torch's own log (glog's format: level, date and time, process id), which differs on
# every run: "W1127 10:16:44.694000 2 torch/fx/...] ..." shows as "W<time> <pid> torch/fx/...] ..."
_TORCH_LOG = re.compile(r"(?m)^([DIWEF])\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+ ")
MARGIN = 4096  # characters kept beyond max_output before paths are shortened (they only shrink)


class Cleaner:
    """Clean captured text, keeping at most ``limit`` characters of it."""

    def __init__(self, root: Path, workdir: Path, tmp: Path, limit: int, own: dict[str, str] | None = None) -> None:
        self.root, self.workdir, self.tmp, self.limit = root, workdir, tmp, limit
        # the example's working folder; its temporary folder, new each build; the project; ``own``: its folders
        # by variable (:data:`READER_FOLDERS`), HOME last: the others may lie inside it
        own = own or {}
        mine = [(Path(own[name]), short) for name, short in READER_FOLDERS.items()
                if len(Path(own.get(name) or "/").parts) > 2]  # never "/" or "/home": a folder of its own
        self.folders = [
            (re.compile(re.escape(str(folder)) + r"(?![\w.-])"), short)
            for folder, short in ((workdir, "."), (tmp, "/tmp"), (root.parent, "."), *mine)
        ]

    def __call__(self, text: str) -> tuple[str, int]:
        """The cleaned text, cut to the limit, and how many characters were cut."""
        text = _ESCAPES.sub("", text)
        # A carriage return starts its line again (progress bars): keep what was printed last
        text = "\n".join(line.rsplit("\r", 1)[-1] for line in text.replace("\r\n", "\n").split("\n"))
        cut = max(0, len(text) - (self.limit + MARGIN))
        text = text[: self.limit + MARGIN].translate(_MARKS)
        # Paths of the building machine: a library's as …/site-packages/torch/…, the project's relative
        text = _SITE_PACKAGES.sub("…/site-packages/", text)
        text = _STDLIB.sub(f"…/python{sys.version_info[0]}.{sys.version_info[1]}/", text)
        for pattern, short in self.folders:
            text = pattern.sub(short, text)
        text = _TORCH_LOG.sub(r"\1<time> <pid> ", text)
        cut += max(0, len(text) - self.limit)
        return text[: self.limit], cut
