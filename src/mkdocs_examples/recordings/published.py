"""The recordings a build publishes beside its own outputs, and what each page, download and view takes of them.

One :class:`Published` per device the site publishes (the plugin option ``publish``), read
from ``<recordings>/<device>/`` once per build and checked: a recording that cannot be read,
or that another device made, stops the build; one of an example that changed since is
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

    def __init__(self, root: Path, devices: list[str]) -> None:
        self.root, self.devices = root, devices
        self.found: dict[str, dict[str, Recording]] = {}  # device: example path: its recording
        self.site: dict[str, str] = {}  # the build's own torch and Python, which a recording may differ from

    def folders(self) -> list[Path]:
        """The folders of recordings that exist, ``<root>/<device>/``."""
        return [folder for device in self.devices if (folder := self.root / device).is_dir()]

    def read(self, examples: dict[str, Example], site_env: dict[str, str], note: Callable[[str], None]) -> None:
        """Read and check every recording; ``note`` gets the one line about stale ones (not a warning:
        contributors have no GPU, and a strict build must not fail for it).

        :class:`RecordingError`, naming the file and what to do, for one that cannot be published.
        """
        try:
            self.found = store.load_published(self.root, self.devices, examples)
        except RecordingError as error:
            raise RecordingError(f"{error}: fix or delete the file; the GPU job writes it again") from None
        self.site = {"torch": site_env["torch"], "python": site_env.get("python", "?")} if site_env else {}
        if old := store.stale(self.found, examples):
            listed = ", ".join(f"{r.example} (recorded on {r.device} {r.date})" for r in old)
            note(f"{len(old)} recording(s) out of date, not shown until the GPU job records them again: {listed}")

    def clear(self) -> None:
        self.found, self.site = {}, {}

    def of(self, path: str) -> tuple[Published, ...]:
        """Each published device's recording of example ``path`` (None where it has none)."""
        return tuple(Published(device, found.get(path), self.site) for device, found in self.found.items())

    def fresh(self, example: Example) -> list[Recording]:
        """The recordings of exactly this source: a page shows them beside the build's outputs."""
        return [p.recording for p in self.of(example.path) if p.recording and p.fresh(example)]

    def results(self, example: Example) -> list[Result]:
        """The fresh recordings of ``example`` as results (the error index reads them like the build's)."""
        return [Result(cells=r.cells, env=r.env) for r in self.fresh(example)]

    def first(self, example: Example) -> Recording | None:
        """The first fresh recording of ``example``: downloads and notebook views carry its outputs."""
        return next(iter(self.fresh(example)), None)
