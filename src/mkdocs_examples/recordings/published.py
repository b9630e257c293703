"""The recordings a build publishes beside its own outputs, and what each page, download and view takes of them.

One :class:`Published` per environment the site publishes (a folder of recordings; the plugin
option ``publish`` names them, by default every one), read from ``<recordings>/<environment>/``
once per build and checked: a recording that cannot be read, or that another environment made
than its folder's manifest says, stops the build; one of an example that changed since is
*stale*, listed in one info line and never shown.
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
        self.found: dict[str, dict[str, Recording]] = {}  # environment: example path: its recording
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
            self.found = store.load_published(self.root, self.environments, examples)
        except RecordingError as error:
            raise RecordingError(f"{error}: fix or delete the file; the GPU job writes it again") from None
        self.site = {"torch": site_env["torch"], "python": site_env.get("python", "?")} if site_env else {}
        self.device = site_env.get("device", "cpu") if site_env else "cpu"
        if old := store.stale(self.found, examples):
            listed = ", ".join(f"{r.example} (recorded on {r.device}, torch {r.env.get('torch', '?')}, {r.date})"
                               for r in old)  # fmt: skip
            note(f"{len(old)} recording(s) out of date, not shown until they are recorded again: {listed}")

    def clear(self) -> None:
        self.found, self.site = {}, {}

    def of(self, path: str) -> tuple[Published, ...]:
        """Each published environment's recording of example ``path`` (None where it has none)."""
        return tuple(Published(_device_of(found, path, name), found.get(path), self.site, name)
                     for name, found in self.found.items())  # fmt: skip

    def fresh(self, example: Example) -> list[Recording]:
        """The recordings of exactly this source: a page shows them beside the build's outputs."""
        return [p.recording for p in self.of(example.path) if p.recording and p.fresh(example)]

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

    def checked(self, example: Example) -> list[Recording]:
        """The fresh recordings of ``example`` on the build's device: the other releases its claims were checked on."""
        return [r for r in self.fresh(example) if r.device == self.device]


def _device_of(found: dict[str, Recording], path: str, name: str) -> str:
    """The device of a folder's recordings: its manifest's, which every recording there repeats (checked when
    read); the name's first word (``cpu-torch2.14.1-py3.11`` → ``cpu``) for a folder without any."""
    recording = found.get(path) or next(iter(found.values()), None)
    return recording.device if recording else name.split("-")[0]
