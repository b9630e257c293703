"""The recordings a build publishes beside its own outputs, and what each page, download and view takes of them.

One :class:`Published` per environment the site publishes (a folder of recordings; the plugin
option ``publish`` names them, by default every one), read from ``<recordings>/<environment>/``
once per build and checked: a recording that cannot be read, or that another environment made
than its folder's manifest says, stops the build. Of each recording, what is published is what
still holds for the example as it is now (recordings/store.py: :func:`~store.current`): the
cells whose key is the example's, citing its lines as they are now. The cells that ran other
code than now are *stale*, listed in one info line and never shown.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mkdocs_examples.recordings import store
from mkdocs_examples.recordings.store import Published, Recording, RecordingError
from mkdocs_examples.results import Result
from mkdocs_examples.source.cells import Example


class PublishedRecordings:
    """What a build publishes of the recordings under ``root`` (``<root>/<device>/<path>.json``)."""

    def __init__(self, root: Path, names: list[str]) -> None:
        """``names``: the folders under ``root`` to publish; none: every folder of recordings there."""
        self.root, self.names = root, names
        self.found: dict[str, dict[str, Recording]] = {}  # environment: example path: what holds of its recording
        self.read_as: dict[str, dict[str, Recording]] = {}  # environment: example path: its recording as read
        self.outdated: dict[str, set[str]] = {}  # environment: the paths of recordings with stale cells
        self.uninstallable: list[dict[str, str]] = []  # manifests of releases pip could not install (no recordings)
        self.site: dict[str, str] = {}  # the build's own torch and Python, which a recording may differ from
        self.device = "cpu"  # the build's own device: recordings of another fill the cells it skips

    @property
    def environments(self) -> list[str]:
        return list(self.names) or store.environment_folders(self.root)

    def folders(self) -> list[Path]:
        """The folders of recordings that exist, ``<root>/<environment>/``."""
        return [folder for name in self.environments if (folder := self.root / name).is_dir()]

    def read(self, examples: dict[str, Example], site_env: dict[str, str], note: Callable[[str], None]) -> None:
        """Read and check every recording; ``note`` gets the one line about stale ones (not a warning:
        contributors have no GPU, and a strict build must not fail for it).

        :class:`RecordingError`, naming the file and what to do, for one that cannot be published.
        """
        try:
            self.read_as = store.load_published(self.root, self.environments, examples)
        except RecordingError as error:
            raise RecordingError(f"{error}: fix or delete the file; the GPU job writes it again") from None
        self.found = {name: {path: held for path, r in by_path.items() if path in examples
                             and (held := store.current(r, examples[path])) is not None}
                      for name, by_path in self.read_as.items()}  # fmt: skip
        self.site = {"torch": site_env["torch"], "python": site_env.get("python", "?")} if site_env else {}
        self.device = site_env.get("device", "cpu") if site_env else "cpu"
        self.uninstallable = [m for f in self.folders() if (m := store.read_manifest(f)).get("installable") is False]
        self.outdated = {name: {p for p, r in by_path.items() if p in examples and not r.whole(examples[p])}
                         for name, by_path in self.read_as.items()}  # fmt: skip
        if old := store.stale(self.read_as, examples):
            listed = ", ".join(f"{r.example} cells {', '.join(map(str, cells))} (recorded on {r.device}, "
                               f"torch {r.env.get('torch', '?')}, {r.date})" for r, cells in old)  # fmt: skip
            count = sum(len(cells) for _, cells in old)
            note(f"{count} recorded cell(s) of {len(old)} recording(s) ran other code than now, not shown until "
                 f"they are recorded again: {listed}")  # fmt: skip

    def clear(self) -> None:
        self.found, self.read_as, self.outdated, self.site, self.uninstallable = {}, {}, {}, {}, []

    def of(self, path: str) -> tuple[Published, ...]:
        """Each published environment's recording of example ``path`` (None where it has none)."""
        return tuple(Published(_device_of(read, path, name), self.found[name].get(path), self.site, name,
                               read.get(path) if path in self.outdated.get(name, ()) else None)
                     for name, read in self.read_as.items())  # fmt: skip

    def fresh(self, example: Example) -> list[Recording]:
        """What holds of each recording of ``example``: the cells that ran its code as it is now."""
        return [p.recording for p in self.of(example.path) if p.recording]

    def elsewhere(self, example: Example) -> list[Recording]:
        """The fresh recordings of ``example`` made on another device than the build's: they hold the
        outputs of the cells the build skipped (``requires-cuda``)."""
        return [r for r in self.fresh(example) if r.device != self.device]

    def results(self, example: Example) -> list[Result]:
        """The fresh recordings of ``example`` as results: the error index lists what they raised, as pages show it."""
        return [Result(cells=tuple(c for c in r.cells if not r.failed or c.cell != r.failed.cell), env=r.env)
                for r in self.fresh(example)]  # not the cell whose check failed there: pages leave it out

    def first(self, example: Example) -> Recording | None:
        """The first recording of ``example`` on another device: downloads and notebook views carry its outputs."""
        return next(iter(self.elsewhere(example)), None)

    def checked_elsewhere(self, example: Example) -> list[Recording]:
        """The recordings of ``example`` on another device than the build's (a GPU) in which every cell ran as it is
        now: the devices its claims were checked on besides the build's."""
        return [r for r in self.elsewhere(example) if r.whole(example)]

    def checked(self, example: Example) -> list[Recording]:
        """The recordings of ``example`` on the build's device in which every cell, hidden checks too, ran as it is
        now: the other releases its claims were checked on."""
        return [r for r in self.fresh(example) if r.device == self.device and r.whole(example)]


def _device_of(found: dict[str, Recording], path: str, name: str) -> str:
    """The device of a folder's recordings: its manifest's, which every recording there repeats (checked when
    read); the name's first word (``cpu-torch2.14.1-py3.11`` → ``cpu``) for a folder without any."""
    recording = found.get(path) or next(iter(found.values()), None)
    return recording.device if recording else name.split("-")[0]
