"""Recordings: what examples printed on another machine (a GPU), committed so that a build without one publishes it.

One plain JSON file per example, ``<recordings>/<device>/<path without .py>.json``, in the
format of ``schemas/recording.schema.json`` (README, "CUDA outputs"), which this module reads
it through. In short::

    {"schema": 1, "example": "devices/gpu_memory.py", "digest": "<sha256 of its source>",
     "recorded": "2026-11-22T15:40:12Z", "seconds": 1.83, "env": {"device": "cuda", "gpu": ..., "torch": ...},
     "cells": [{"cell": 0, "name": "setup", "output": ["line 1\\n", "line 2\\n"], "traceback": null,
                "images": [], "truncated": 0, "skipped": null, "seconds": 0.1}, ...]}

Output and tracebacks are lists of lines, so a pull request that refreshes recordings shows
reviewers which lines changed. A recording belongs to the exact source it ran
(``digest``): once the example changes it is *stale*, and pages never show it.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mkdocs_examples import __version__
from mkdocs_examples.results import RESULT, CellResult, Result
from mkdocs_examples.schema import JSONError, loads, validate
from mkdocs_examples.source.cells import Example

SCHEMA = 1  # the version a recording names, and the schema's "const"
RECORDING = "recording.schema.json"


class RecordingError(Exception):
    """A recording that cannot be used, named by its file."""


@dataclass(frozen=True)
class Recording:
    example: str
    digest: str
    recorded: str
    env: dict[str, str]
    seconds: float
    cells: tuple[CellResult, ...]
    names: tuple[str | None, ...] = ()  # cell names, for readers of the file; not read back

    @classmethod
    def of(cls, example: Example, result: Result, env: dict[str, str]) -> Recording:
        """The recording of a successful run of ``example``."""
        assert result.failure is None
        return cls(
            example=example.path,
            digest=example.digest,
            recorded=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            env={**result.env, **env},
            seconds=round(result.seconds, 3),
            cells=result.cells,
            names=tuple(c.name for c in example.cells),
        )

    @property
    def device(self) -> str:
        return self.env.get("device", "?")

    @property
    def date(self) -> str:
        return self.recorded[:10]

    def cell(self, index: int) -> CellResult | None:
        return next((c for c in self.cells if c.cell == index), None)

    def to_json(self) -> dict[str, Any]:
        def cell(c: CellResult) -> dict[str, Any]:
            name = self.names[c.cell] if c.cell < len(self.names) else None
            return {
                "cell": c.cell,
                "name": name,
                "output": c.output.splitlines(keepends=True),
                "traceback": None if c.traceback is None else c.traceback.splitlines(keepends=True),
                "images": list(c.images),
                "truncated": c.truncated,
                "skipped": c.skipped,
                "seconds": c.seconds,
            }

        return {
            "schema": SCHEMA,
            "example": self.example,
            "digest": self.digest,
            "recorded": self.recorded,
            "seconds": self.seconds,
            "env": dict(sorted(self.env.items())),
            "cells": [cell(c) for c in self.cells],
        }

    @classmethod
    def from_json(cls, data: Any) -> Recording:
        """The recording ``data`` describes; :class:`JSONError` naming the path of what does not match its schema."""
        data = validate(data, RECORDING)  # a recording can come from a stranger's pull request
        cells = tuple(
            CellResult(int(c["cell"]), "".join(c["output"]), int(c["truncated"]), tuple(c["images"]),
                       None if c["traceback"] is None else "".join(c["traceback"]), c["skipped"], float(c["seconds"]))
            for c in data["cells"]
        )  # fmt: skip
        names = tuple(c["name"] for c in data["cells"])
        return cls(data["example"], data["digest"], data["recorded"], dict(data["env"]), float(data["seconds"]),
                   cells, names)  # fmt: skip


@dataclass(frozen=True)
class Published:
    """One device's recording of an example, as the build that publishes it sees it."""

    device: str
    recording: Recording | None  # None: never recorded on that device
    # the build's own torch and Python ({"torch": "2.13.0+cpu", "Python": "3.11.7"}): a recording
    # made with other versions says so, since they too change what is printed
    site: dict[str, str] = field(default_factory=dict)

    def fresh(self, example: Example) -> bool:
        """Whether the recording ran exactly the source the page shows."""
        return self.recording is not None and self.recording.digest == example.digest


# --- files ---------------------------------------------------------------------


def file_of(folder: Path, example_path: str) -> Path:
    return folder / f"{example_path.removesuffix('.py')}.json"


def dumps(recording: Recording) -> str:
    return json.dumps(recording.to_json(), indent=1, ensure_ascii=False) + "\n"


def read(file: Path, folder: Path) -> Recording:
    """The recording in ``file``, checked to be where its example's path puts it under ``folder``."""
    try:
        recording = Recording.from_json(loads(file.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, JSONError) as error:
        raise RecordingError(f"{file}: not a readable recording ({error})") from None
    if file_of(folder, recording.example).resolve() != file.resolve():
        where = file_of(folder, recording.example)
        raise RecordingError(f"{file}: records {recording.example}, which belongs in {where}")
    return recording


def read_folder(folder: Path) -> dict[str, Recording]:
    """Every recording under ``folder`` by example path; :class:`RecordingError` for the first bad one."""
    found: dict[str, Recording] = {}
    for file in sorted(folder.rglob("*.json")) if folder.is_dir() else []:
        recording = read(file, folder)
        found[recording.example] = recording
    return found


def load_published(root: Path, devices: list[str], examples: dict[str, Example]) -> dict[str, dict[str, Recording]]:
    """The recordings under ``root/<device>/`` for each of ``devices`` whose folder exists, by device and path.

    :class:`RecordingError` for a file that cannot be read, or that another device made: nothing
    is published as CUDA unless a CUDA machine recorded it.
    """
    found: dict[str, dict[str, Recording]] = {}
    for device in devices:
        folder = root / device
        if not folder.is_dir():
            continue
        found[device] = read_folder(folder)
        for recording in found[device].values():
            if recording.device != device:
                raise RecordingError(
                    f"{file_of(folder, recording.example)} was recorded on {recording.device}: only what a "
                    f"{device} machine recorded is published as {device}"
                )
    return found


def stale(found: dict[str, dict[str, Recording]], examples: dict[str, Example]) -> list[Recording]:
    """The recordings of examples whose source has changed since: pages do not show them."""
    return [r for by_path in found.values() for path, r in sorted(by_path.items())
            if path in examples and r.digest != examples[path].digest]  # fmt: skip


def write_folder(folder: Path, recordings: list[Recording], *, replace: bool = False) -> None:
    """Write ``recordings`` under ``folder``; with ``replace``, remove every other recording there.

    The new files are written beside the folder first and moved in only when all are written,
    so an interrupted write leaves the old recordings as they were.
    """
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        for recording in recordings:
            file = file_of(staging, recording.example)
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(dumps(recording), encoding="utf-8")
        if replace and folder.exists():
            old = folder.with_name(f".{folder.name}-old-{os.getpid()}")
            folder.rename(old)
            staging.rename(folder)
            shutil.rmtree(old)
            return
        for file in sorted(staging.rglob("*.json")):
            target = folder / file.relative_to(staging)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(file, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


# --- the machine -----------------------------------------------------------------

_PROBE = """
import json, torch
info = {"torch": torch.__version__}
if torch.cuda.is_available():
    info.update(
        cuda=torch.version.cuda or "",
        cudnn=str(torch.backends.cudnn.version() or ""),
        gpu=torch.cuda.get_device_name(0),
        gpu_count=str(torch.cuda.device_count()),
        capability="%d.%d" % torch.cuda.get_device_capability(0),
    )
print(json.dumps(info))
"""


def environment(device: str = "cpu") -> dict[str, str]:
    """What a recording says about the machine: torch, CUDA, cuDNN, GPU, driver, Python, OS, engine.

    A recording that cannot say which torch (and, on ``cuda``, which GPU) made it is worthless:
    if the probe fails, this raises :class:`RecordingError` instead of writing it without them.
    """
    env = {"python": platform.python_version(), "os": platform.platform(), "engine": __version__}
    why = ""
    try:
        probe = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120)
        why = (probe.stderr.strip().splitlines() or [f"exit code {probe.returncode}"])[-1]
        env.update(validate(loads(probe.stdout), f"{RESULT}#/$defs/env"))
    except (OSError, subprocess.SubprocessError, JSONError) as error:
        why = why or str(error)
        raise RecordingError(f"cannot tell which torch this machine runs ({why}); nothing was recorded") from error
    if device == "cuda" and "gpu" not in env:
        raise RecordingError("recording for cuda, but torch sees no CUDA GPU here; nothing was recorded")
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        smi = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        if smi.returncode == 0 and smi.stdout.strip():
            env["driver"] = smi.stdout.split()[0]
    return env
