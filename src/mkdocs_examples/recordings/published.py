"""The recordings a build publishes beside its own outputs, and what each page, download and view takes of them.

One :class:`Published` per environment the site publishes (a folder of recordings; the plugin
option ``publish`` names them, by default every one), read from ``<recordings>/<environment>/``
once per build and checked: a recording that cannot be read, or that another environment made
than its folder's manifest says, stops the build. Of each recording, what is published is what
still holds for the example as it is now (recordings/store.py: :func:`~store.current`): the
cells whose key is the example's, citing its lines as they are now. The cells that ran other
code than now are *stale*, listed in one info line and never shown.

Each recording is verified too (recordings/attest.py): one that no key of ``signers.json`` signs
for its folder, as it is, is *unverified*. The build warns, once per folder, naming the files and
what to do (a strict build fails); a build that goes on labels its outputs "unverified".

Under `mkdocs serve` one object reads them on every rebuild: it keeps what it read and verified while
no file under the published folders changed (:func:`store.snapshot`), and what each page gets of a
recording while its example is the same, so that an edited example costs what that example changed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs_examples.recordings import attest, store
from mkdocs_examples.recordings.store import Published, Recording, RecordingError
from mkdocs_examples.results import Result
from mkdocs_examples.source.cells import Example


class PublishedRecordings:
    """What a build publishes of the recordings under ``root`` (``<root>/<device>/<path>.json``)."""

    def __init__(self, root: Path, names: list[str]) -> None:
        """``names``: the folders under ``root`` to publish; none: every folder of recordings there."""
        self.root, self.names = root, names
        self.found: dict[str, dict[str, Recording]] = {}  # environment: example path: what holds of its recording
        self.published: dict[str, dict[str, Published]] = {}  # environment: example path: what its pages get
        self.uninstallable: list[dict[str, str]] = []  # manifests of releases pip could not install (no recordings)
        self.site: dict[str, str] = {}  # the build's own torch and Python, which a recording may differ from
        self.device = "cpu"  # the build's own device: recordings of another fill the cells it skips
        self._files: _Read | None = None  # what the files held when last read, while none of them changes
        # folder, example path: a recording, the example, the build's environment and the verdict it was published
        # with, and what its pages got (Published.holding), while all four are the same
        self._held: dict[tuple[str, str], tuple[Recording, Example, dict[str, str], str, Published]] = {}

    @property
    def environments(self) -> list[str]:
        return list(self.names) or store.environment_folders(self.root)

    def folders(self) -> list[Path]:
        """The folders of recordings that exist, ``<root>/<environment>/``."""
        return [folder for name in self.environments if (folder := self.root / name).is_dir()]

    def read(self, examples: dict[str, Example], site_env: dict[str, str], note: Callable[[str], None],
             warn: Callable[[str], None] | None = None) -> None:  # fmt: skip
        """Read and check every recording; ``note`` gets the one line about stale ones (not a warning:
        contributors have no GPU, and a strict build must not fail for it), ``warn`` one line per folder that holds
        unverified ones (a strict build fails).

        :class:`RecordingError`, naming the file and what to do, for one that cannot be published.
        """
        files = self._read_files()
        read, why = files.recordings, files.why
        self.site = {"torch": site_env["torch"], "python": site_env.get("python", "?")} if site_env else {}
        self.device = site_env.get("device", "cpu") if site_env else "cpu"
        self.published = {name: {path: self._holding(name, path, r, examples[path], why[name][path])
                                 for path, r in by_path.items() if path in examples}
                          for name, by_path in read.items()}  # fmt: skip
        for name, by_path in why.items():
            if (unverified := {path: w for path, w in by_path.items() if w}) and warn:
                warn(_unverified(self.root / name, unverified))
        self.found = {name: {path: p.recording for path, p in by_path.items() if p.recording}
                      for name, by_path in self.published.items()}  # fmt: skip
        self.uninstallable = list(files.uninstallable)
        if old := store.stale(read, examples):
            listed = ", ".join(f"{r.example} cells {', '.join(map(str, cells))} (recorded on {r.device}, "
                               f"torch {r.env.get('torch', '?')}, {r.date})" for r, cells in old)  # fmt: skip
            count = sum(len(cells) for _, cells in old)
            note(f"{count} recorded cell(s) of {len(old)} recording(s) ran other code than now, not shown until "
                 f"they are recorded again: {listed}")  # fmt: skip

    def _read_files(self) -> _Read:
        """Every recording of the published folders with why it is unverified ("": it is not), and the manifests of
        releases pip could not install: read from the files and checked, or kept while none of them changed."""
        environments = self.environments
        seen = store.snapshot(self.root, environments)
        if self._files is not None and self._files.snapshot == seen:
            return self._files
        self._files = None  # nothing of files that cannot be read is kept
        try:
            read = store.load_published(self.root, environments, {})
        except RecordingError as error:
            raise RecordingError(f"{error}: fix or delete the file; the GPU job writes it again") from None
        signers = attest.read_signers(self.root)
        why = {name: {path: attest.verify(r, name, signers).why for path, r in by_path.items()}
               for name, by_path in read.items()}  # fmt: skip
        uninstallable = tuple(m for f in self.folders() if (m := store.read_manifest(f)).get("installable") is False)
        self._files = _Read(seen, read, why, uninstallable)
        return self._files

    def _holding(self, name: str, path: str, recording: Recording, example: Example, why: str) -> Published:
        """What ``example``'s pages get of its ``recording`` in folder ``name`` (:meth:`Published.holding`)."""
        kept = self._held.get((name, path))
        if kept and kept[0] is recording and kept[1] == example and kept[2] == self.site and kept[3] == why:
            return kept[4]
        published = Published.holding(recording.device, recording, example, self.site, name, why)
        self._held[name, path] = (recording, example, self.site, why, published)
        return published

    def unverified(self) -> frozenset[str]:
        """The environments with a published recording that no trusted key signs (the picker labels them so)."""
        return frozenset(name for name, by_path in self.published.items()
                         if any(p.unverified for p in by_path.values()))  # fmt: skip

    def clear(self) -> None:
        self.found, self.published, self.site, self.uninstallable = {}, {}, {}, []

    def of(self, path: str) -> tuple[Published, ...]:
        """Each published environment's recording of example ``path`` (None where it has none)."""
        return tuple(by_path.get(path) or Published(_device_of(by_path, name), None, self.site, name)
                     for name, by_path in self.published.items())  # fmt: skip

    def fresh(self, example: Example) -> list[Recording]:
        """What holds of each recording of ``example``: the cells that ran its code as it is now."""
        return [p.recording for p in self.of(example.path) if p.recording]

    def elsewhere(self, example: Example) -> list[Recording]:
        """The fresh recordings of ``example`` made on another device than the build's: they hold the
        outputs of the cells the build skipped (``requires-cuda``)."""
        return [r for r in self.fresh(example) if r.device != self.device]

    def results(self, example: Example) -> list[Result]:
        """The fresh recordings of ``example`` as results: the error index lists what they raised, as pages show it."""
        return [Result(cells=tuple(c for c in r.cells if c.cell not in r.failed_cells), env=r.env)
                for r in self.fresh(example)]  # not the cell whose check failed there: pages leave it out

    def first(self, example: Example) -> Recording | None:
        """The recording whose outputs downloads and notebook views carry for the cells the build skips: for an
        example with ``requires-<module>`` cells, the newest release's in which they all ran; otherwise the first
        on another device (a GPU's, for ``requires-cuda``)."""
        needing = [c.index for c in example.cells if c.module]
        if needing:
            ran = [r for r in self.fresh(example) if all((c := r.cell(i)) and not c.skipped for i in needing)]
            return max(ran, key=lambda r: _release(r.env.get("torch", "")), default=None)
        return next(iter(self.elsewhere(example)), None)

    def checked_elsewhere(self, example: Example) -> list[Recording]:
        """The recordings of ``example`` on another device than the build's (a GPU) in which every cell ran as it is
        now: the devices its claims were checked on besides the build's."""
        return [r for r in self.elsewhere(example) if r.whole(example)]

    def checked(self, example: Example) -> list[Recording]:
        """The recordings of ``example`` on the build's device in which every cell, hidden checks too, ran as it is
        now: the other releases its claims were checked on."""
        return [r for r in self.fresh(example) if r.device == self.device and r.whole(example)]


def _release(torch: str) -> tuple[int, ...]:
    """A torch version's release numbers, to order by: (2, 15, 0) for "2.15.0+cu128"."""
    return tuple(int(n) for n in re.findall(r"\d+", torch.partition("+")[0])[:3])


@dataclass(frozen=True)
class _Read:
    """What the files of the recordings held when :func:`store.snapshot` was ``snapshot``."""

    snapshot: tuple[tuple[str, int, int, int, int], ...]
    recordings: dict[str, dict[str, Recording]]  # folder: example path: the recording as read
    why: dict[str, dict[str, str]]  # folder: example path: why no trusted key signs it ("": one does)
    uninstallable: tuple[dict[str, Any], ...]  # the manifests of releases pip could not install


def _unverified(folder: Path, why: dict[str, str]) -> str:
    """The warning about a folder's unverified recordings: how many, the first few by file and why, what to do."""
    listed = [f"{store.file_of(folder, path)} ({reason})" for path, reason in sorted(why.items())]
    more = f"; and {len(listed) - 5} more" if len(listed) > 5 else ""
    return (f"{len(listed)} recording(s) in {folder} are unverified, no trusted key signs them as they are: "
            f"{'; '.join(listed[:5])}{more}. Pages label their outputs 'unverified'. Let the workflow that records "
            f"{folder.name} record them again, or, for recordings you made yourself, sign them with a key listed in "
            f"{folder.parent / attest.SIGNERS} (`mkdocs-examples sign {folder} --key FILE`; "
            'README of mkdocs_examples, "Who recorded it")')  # fmt: skip


def _device_of(published: dict[str, Published], name: str) -> str:
    """The device of a folder's recordings: its manifest's, which every recording there repeats (checked when
    read); the name's first word (``cpu-torch2.14.1-py3.11`` → ``cpu``) for a folder without any."""
    first = next(iter(published.values()), None)
    return first.device if first else name.split("-")[0]
