"""Which outputs of one cell a page shows, and as what: attributed to what differs, never by raw text.

A cell may have been run in several environments: this build (its torch, device, Python) and
each published folder of recordings. Their outputs are compared only after the machine's noise
is taken out (:func:`normalise`, the list :data:`NOISE`):

- a warning's ``file:line`` (``/…/torch/nn/modules/loss.py:610: UserWarning``, and the C++
  source a warning names, ``Triggered internally at /…/python_variable_methods.cpp:820``) and a
  traceback's ``File "…", line N``: the path and line of PyTorch's own source move between
  releases and installations;
- memory addresses, ``0x7f3a…``;
- temporary paths, ``/tmp/…``.

Then (:func:`attribute`):

- outputs that are the same once normalised are shown once: the first of them;
- a **device tab set** ("CPU | CUDA") appears only where the output of another device differs
  from the output of the page's device *in the same environment*: the same torch release and
  the same Python (the GPU job records both devices with one torch). This build's output and a
  recording count as one environment when their torch release and Python minor agree;
- any other difference (a torch release, a Python version, or a device no same-release run
  can vouch for) is a **note** naming the environments that printed it, with their output
  folded; it never looks like a device difference. Environments whose outputs are the same
  once the versions each prints of itself are out (:func:`change_key`) share one note.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from mkdocs_examples.recordings.store import python_minor, release
from mkdocs_examples.render.provenance import Source, built_for
from mkdocs_examples.results import CellResult

# (pattern, replacement): what differs between two runs of the same code without meaning anything
NOISE: tuple[tuple[re.Pattern[str], str], ...] = (
    # a warning's file:line, of Python or of PyTorch's C++ ("Triggered internally at /…/x.cpp:820"). It starts
    # where a run of path characters starts: begun anywhere inside a run, the search scanned the rest of the run
    # from each character, quadratic in a long line without one (the same matches: a run's longest is taken)
    (re.compile(r"""(?<![^\s"'()<>])[^\s"'()<>]*\.(?:py|pyx|c|cc|cpp|cu|cuh|h|hpp):\d+\b"""), "<file>:<line>"),
    (re.compile(r'File "[^"\n]*", line \d+'), 'File "<file>", line <line>'),  # a traceback's frame
    (re.compile(r"\b0x[0-9a-fA-F]{4,}\b"), "0x<address>"),  # a memory address
    (re.compile(r"""(?:/tmp|/var/tmp|/private/var/folders|/var/folders)/[^\s"':,)]*"""), "<tmp>"),  # temporary paths
)


@functools.lru_cache(maxsize=1 << 16)  # each release's output of a cell is mostly the same text
def normalise(text: str) -> str:
    """``text`` without the noise of :data:`NOISE`: two outputs that differ only there compare equal."""
    for pattern, replacement in NOISE:
        text = pattern.sub(replacement, text)
    return text


def key(cell: CellResult) -> tuple:
    """What two outputs of a cell are compared by: output and traceback normalised, figures exactly."""
    return normalise(cell.output), cell.truncated, normalise(cell.traceback or ""), cell.images


def change_key(cell: CellResult, env: dict[str, str]) -> tuple:
    """What a cell's outputs in two releases are compared by to call it a change (the checks line, the page of
    changes), and to fold them into one note: :func:`key`, with the versions the environment ``env`` prints of
    itself (:func:`own_versions`) named alike in each."""
    return _change_key(cell, own_versions(env))


def own_versions(env: dict[str, str]) -> tuple[str, ...]:
    """The versions an environment may print of itself, longest first: its torch as it reports itself
    (``2.4.1+cu121``) and as a release (``2.4.1``), the CUDA its build is for (``12.1``: ``torch.version.cuda``)
    and its Python (``3.11.7``)."""
    torch = env.get("torch", "")
    found = {torch, release(torch), env.get("cuda") or built_for(torch), env.get("python", "")} - {""}
    return tuple(sorted(found, key=lambda version: (-len(version), version)))


@functools.lru_cache(maxsize=1 << 16)  # each cell against every release, on the checks line and the changes page
def _change_key(cell: CellResult, versions: tuple[str, ...]) -> tuple:
    # a version on its own, not a part of a longer number: 12.1 is not in 2.12.1, nor in 12.10
    patterns = [re.compile(rf"(?<![\w.]){re.escape(version)}(?![\w]|\.\d)") for version in versions]

    def named(text: str) -> str:
        for pattern in patterns:
            text = pattern.sub("<version>", text)
        return text

    output, truncated, traceback, images = key(cell)
    return named(output), truncated, named(traceback), images


@dataclass(frozen=True)
class View:
    """One environment's output of a cell."""

    source: Source  # the environment: the build's own, or a folder of recordings
    cell: CellResult

    @property
    def env(self) -> dict[str, str]:
        """Device, torch, python (and gpu) of the run."""
        return self.source.env

    @property
    def device(self) -> str:
        return self.env.get("device", "?")


@dataclass(frozen=True)
class Shown:
    """What a page shows of a cell: ``tabs`` (one view: no tabs) and ``notes`` (other outputs, each with the
    environments that printed it)."""

    tabs: list[View]
    notes: list[list[View]]


def version_key(version: str) -> tuple[int, ...]:
    """``2.14.1`` → ``(2, 14, 1)``, for sorting releases; parts that are not numbers count as 0."""
    return tuple(int(part) if part.isdigit() else 0 for part in re.split(r"[.]", release(version))[:3])


def _oldest_first(view: View) -> tuple:
    """The order of other environments' outputs: by torch release (2.4 before 2.10), Python, then CPU first."""
    return version_key(view.env.get("torch", "")), version_key(view.env.get("python", "")), view.device != "cpu"


def same_environment(a: dict[str, str], b: dict[str, str]) -> bool:
    """Whether two runs used the same torch release and Python (their devices aside)."""
    return release(a.get("torch", "?")) == release(b.get("torch", "?")) and python_minor(
        a.get("python", "?")
    ) == python_minor(b.get("python", "?"))


def attribute(views: list[View]) -> Shown:
    """Tabs and notes for ``views``, the first being the page's own output (see the module's docstring)."""
    if not views:
        return Shown([], [])
    first, others = views[0], sorted(views[1:], key=_oldest_first)
    tabs = [first]
    for view in sorted(others, key=lambda v: not same_environment(v.env, first.env)):  # the page's own first
        if view.device == first.device or any(t.device == view.device for t in tabs):
            continue
        # the output of the page's device in this view's environment: the build's, or a recording's. A tab
        # only where that is the page's own output too: tabs never put two releases side by side
        reference = next((r for r in views if r.device == first.device and same_environment(r.env, view.env)), None)
        if reference is not None and key(reference.cell) == key(first.cell) != key(view.cell):
            tabs.append(view)
    notes: dict[tuple, list[View]] = {}
    for view in others:
        if view in tabs or any(key(view.cell) == key(t.cell) for t in tabs):
            continue  # shown, or the same output once the noise is out
        # one note for the environments whose outputs are the same but for the versions each prints of itself
        notes.setdefault(change_key(view.cell, view.env), []).append(view)
    return Shown(tabs, list(notes.values()))

