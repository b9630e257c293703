"""What an example reads of the host's load: nothing. Neutral files over the host-wide ones of its /proc (Linux).

Its ``/proc`` is its own PID namespace's, but some of its files describe the whole machine: the load
average and the number of tasks running (``loadavg``), the CPU time of every core and the context
switches (``stat``), the pressure on CPU, memory and I/O (``pressure/``), free memory, swap, disk and
interrupt counters, the uptime. From them an example could tell a pull request's build (no cache,
every example running) from main's, and print something else once merged. As LXCFS, gVisor and
container runtimes do, each is covered, read-only, by a file that keeps its shape (the same lines,
the same fields, so that a parser still reads it) with no figure of the host's: every number 0, but
the memory an example may use (``meminfo``). Files that hold only what a machine is (``cpuinfo``,
``version``, ``filesystems``) and the example's own (``/proc/self``, its processes) stay.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

# Host-wide counters: kept line by line with every number 0 (a name such as cpu0 or nr_free_pages stays)
ZEROED = (
    "stat", "vmstat", "schedstat", "diskstats", "interrupts", "softirqs", "zoneinfo", "buddyinfo", "pagetypeinfo",
    "slabinfo", "sys/fs/file-nr", "sys/fs/inode-nr", "sys/fs/inode-state", "sys/fs/dentry-state",
)  # fmt: skip
# Files of a fixed text: an idle machine that has just started, with no swap
FIXED = {
    "loadavg": "0.00 0.00 0.00 1/1 1\n",
    "uptime": "0.00 0.00\n",
    "swaps": "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n",
}
MEMORY = "meminfo"  # every line 0 kB, but the memory it may use: total, free and available
FOLDERS = ("pressure",)  # covered by an empty, read-only folder
_NUMBER = re.compile(r"(?<![\w.:-])\d+(?:\.\d+)?(?![\w.:])")
_KEPT = ("Hugepagesize",)  # what a machine is, not what it does


def write(folder: Path, memory: int) -> dict[str, Path]:
    """Write the neutral files into ``folder`` (made, or written over: a kernel's is used again), from the
    host's /proc as this process sees it; ``memory``: bytes the example may use (0: the machine's). The files
    to cover /proc's with: {name in /proc: file}, only those the host has (a kernel without PSI has no
    ``pressure``)."""
    folder.mkdir(exist_ok=True)
    texts: dict[str, str] = {}
    for name in (*ZEROED, *FIXED, MEMORY):
        try:
            host = Path("/proc", name).read_text(errors="replace")
        except OSError:  # not on this kernel, or not readable by this user: nothing to hide
            continue
        texts[name] = FIXED.get(name) or (_memory(host, memory) if name == MEMORY else _NUMBER.sub("0", host))
    covers = {}
    for name, text in texts.items():
        file = folder / name.replace("/", "-")
        file.write_text(text)
        covers[name] = file
    for name in FOLDERS:
        if os.path.isdir(Path("/proc", name)):
            (folder / name).mkdir(exist_ok=True)
            covers[name] = folder / name
    return covers


def _memory(host: str, memory: int) -> str:
    """``/proc/meminfo`` of a machine of ``memory`` bytes (0, or more than the host's: the host's), all free."""
    lines = []
    total = 0
    for line in host.splitlines():
        name, _, value = line.partition(":")
        if name == "MemTotal":
            host_total = int(value.split()[0]) << 10
            total = min(memory, host_total) if memory > 0 else host_total
        if name in ("MemTotal", "MemFree", "MemAvailable"):
            value = value.replace(value.strip(), f"{total >> 10} kB")
        elif name not in _KEPT:
            value = _NUMBER.sub("0", value)
        lines.append(f"{name}:{value}")
    return "\n".join(lines) + "\n"
