"""Recordings: what examples printed on another machine (a GPU), committed so that a build without one publishes it.

One plain JSON file per example, ``<recordings>/<device>/<path without .py>.json``, in the
format of ``schemas/recording.schema.json`` (README, "Recordings: outputs made elsewhere"), which this module reads
it through. In short::

    {"schema": 2, "example": "devices/gpu_memory.py", "scheme": "tokens-1", "keys": ["<cell 0's key>", ...],
     "lines": {"12": [40, 0]}, "recorded": "2026-11-22T15:40:12Z", "seconds": 1.83,
     "env": {"device": "cuda", "gpu": ..., "torch": ...},
     "cells": [{"cell": 0, "name": "setup", "output": ["line 1\\n", "line 2\\n"], "traceback": null,
                "images": [], "truncated": 0, "skipped": null, "seconds": 0.1}, ...]}

Output and tracebacks are lists of lines, so a pull request that refreshes recordings shows
reviewers which lines changed. A recording holds the key of each cell of the source it ran
(``keys``, source/keys.py: the code that runs up to that cell, named by ``scheme``). A cell
whose key is no longer the example's is *stale*, and pages never show it; the cells before it
stay: a comment, a note or a wrapped line changes no key. ``lines`` ties each line its outputs
cite to a token, so that what a page shows names the line of the source as it is now
(:func:`current`). A recording of an older schema (1: keyed by the whole file's sha256) is
refused, naming ``mkdocs-examples migrate``, never misread.

A recording of a run whose check failed in that environment (``record --keep-failed``: an
assertion that holds on the build's torch but not on another release) keeps the cells up to
the failed one and says which cell failed and how (``failed``). A check whose cell declares
the releases where it holds (``holds=">=2.8"``, source/holds.py) and fails outside them does not
stop the run: the recording lists it (``declared``) and holds the cells after it. The build
compares each declaration with what every recording shows (recordings/declared.py).

Recordings are kept in one folder per *environment* (:func:`environment_id`: device, torch
release, Python, e.g. ``cpu-torch2.14.1-py3.11``), with a manifest, ``environment.json``
(``schemas/environment.schema.json``), that every recording of the folder must agree with.
A folder named after a device alone (``recordings/cuda/``, the older layout) needs no manifest.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mkdocs_examples import __version__
from mkdocs_examples.environment import DEVICES
from mkdocs_examples.execute import raises
from mkdocs_examples.execute.cache import lines_of
from mkdocs_examples.results import MAX_RECORDING, RESULT, CellResult, Failure, Result
from mkdocs_examples.schema import JSONError, loads, validate
from mkdocs_examples.source import files, keys
from mkdocs_examples.source.cells import Example

SCHEMA = 2  # the version a recording names, and the schema's "const" (1: keyed by the whole file; `migrate`)
RECORDING = "recording.schema.json"
ENVIRONMENT = "environment.schema.json"
MANIFEST = "environment.json"  # the manifest of a folder of recordings; never a recording itself
MANIFEST_SCHEMA = 1  # its version: environment.schema.json
# What a manifest says, and every recording of its folder must say alike
MANIFEST_KEYS = ("device", "torch", "python")
# A file of the recordings is read only if it is a regular file itself (source/files.py): a link is never followed
MAX_MANIFEST = 1 << 20  # bytes of environment.json or signers.json: a few lines; a recording's: MAX_RECORDING


class RecordingError(Exception):
    """A recording that cannot be used, named by its file."""


@dataclass(frozen=True)
class Recording:
    example: str
    keys: tuple[str, ...]  # each cell's key in the source it ran (source/keys.py)
    recorded: str
    env: dict[str, str]
    seconds: float
    cells: tuple[CellResult, ...]
    names: tuple[str | None, ...] = ()  # cell names, for readers of the file; not read back
    failed: Failed | None = None  # the check that failed in this environment, if one did
    lines: dict[str, dict[str, int]] = field(default_factory=dict)  # cited line: its token (keys.anchors)
    signature: Signature | None = None  # who vouches for it, with its folder's name (recordings/attest.py)
    declared: tuple[Failed, ...] = ()  # the checks that failed where their cell's holds= says so; the run went on

    @classmethod
    def of(cls, example: Example, result: Result, env: dict[str, str]) -> Recording:
        """The recording of a run of ``example``: successful, or failed in a cell (:data:`KEPT_FAILURES`)."""
        failure = result.failure
        assert failure is None or keepable(result)
        failed = None
        if failure is not None:
            assert failure.cell is not None
            failed = Failed(failure.cell, failure.line, failure.kind, _last_line(failure))
        declared = tuple(Failed(f.cell, f.line, f.kind, _last_line(f)) for f in result.declared if f.cell is not None)
        return cls(
            example=example.path,
            keys=example.keys,
            recorded=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            env={**result.env, **env},
            seconds=round(result.seconds, 3),
            cells=result.cells,
            names=tuple(c.name for c in example.cells),
            failed=failed,
            lines=lines_of(example, result.cells, [failed.line if failed else None, *(f.line for f in declared)]),
            declared=declared,
        )

    @property
    def device(self) -> str:
        return self.env.get("device", "?")

    @property
    def date(self) -> str:
        return self.recorded[:10]

    @property
    def failed_cells(self) -> frozenset[int]:
        """The cells whose check failed here: the one that stopped the run, and those its declarations expected."""
        return frozenset([*([self.failed.cell] if self.failed else []), *(f.cell for f in self.declared)])

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

        data = {
            "schema": SCHEMA,
            "example": self.example,
            "scheme": keys.SCHEME,
            "keys": list(self.keys),
            "lines": self.lines,
            "recorded": self.recorded,
            "seconds": self.seconds,
            "env": dict(sorted(self.env.items())),
            "cells": [cell(c) for c in self.cells],
        }
        if self.failed:
            f = self.failed
            data["failed"] = {"cell": f.cell, "line": f.line, "kind": f.kind, "message": f.message}
        if self.declared:
            data["declared"] = [{"cell": f.cell, "line": f.line, "kind": f.kind, "message": f.message}
                                for f in self.declared]  # fmt: skip
        if self.signature:
            data["signature"] = {"key": self.signature.key, "ed25519": self.signature.ed25519}
        return data

    @classmethod
    def from_json(cls, data: Any) -> Recording:
        """The recording ``data`` describes; :class:`JSONError` naming the path of what does not match its schema."""
        if isinstance(data, dict) and data.get("schema") == 1:
            raise JSONError("a recording of schema 1, keyed by the whole file's sha256: run `mkdocs-examples migrate "
                            "recordings` to key it per cell (it finds the source it ran in git history)")  # fmt: skip
        if isinstance(data, dict) and data.get("scheme") not in (None, keys.SCHEME):
            raise JSONError(f"keyed by the scheme {data['scheme']!r}, and this engine keys by {keys.SCHEME!r}: "
                            "record it again")  # fmt: skip
        data = validate(data, RECORDING)  # a recording can come from a stranger's pull request
        cells = tuple(
            CellResult(int(c["cell"]), "".join(c["output"]), int(c["truncated"]), tuple(c["images"]),
                       None if c["traceback"] is None else "".join(c["traceback"]), c["skipped"], float(c["seconds"]))
            for c in data["cells"]
        )  # fmt: skip
        names = tuple(c["name"] for c in data["cells"])
        f = data.get("failed")
        failed = None if f is None else Failed(int(f["cell"]), None if f["line"] is None else int(f["line"]),
                                               f["kind"], f["message"])  # fmt: skip
        s = data.get("signature")
        signature = None if s is None else Signature(s["key"], s["ed25519"])
        declared = tuple(Failed(int(d["cell"]), None if d["line"] is None else int(d["line"]), d["kind"], d["message"])
                         for d in data.get("declared", ()))  # fmt: skip
        return cls(data["example"], tuple(data["keys"]), data["recorded"], dict(data["env"]), float(data["seconds"]),
                   cells, names, failed, {k: dict(v) for k, v in data["lines"].items()}, signature,
                   declared)  # fmt: skip

    def current(self, example: Example) -> int:
        """How many of ``example``'s cells, from the first, ran here as they are now (source/keys.py: held)."""
        return keys.held(self.keys, example.keys)

    def whole(self, example: Example) -> bool:
        """Whether every cell of ``example``, hidden checks too, ran here as it is now."""
        return self.keys == example.keys


# A run that failed in one of these ways is still a recording with ``record --keep-failed``: a cell
# raised where it should not (a hidden check that does not hold there), or did not raise where it should
KEPT_FAILURES = ("exception", "no-exception")


def keepable(result: Result) -> bool:
    """Whether ``result`` is a run a recording may keep although it failed: in a known cell, as a check does."""
    return result.failure is not None and result.failure.kind in KEPT_FAILURES and result.failure.cell is not None


def _last_line(failure: Failure) -> str:
    """What a recording says of a failed check: the last line of its traceback (``AssertionError: ...``)."""
    lines = (failure.traceback or failure.detail or failure.kind).strip().splitlines()
    return (lines[-1] if lines else failure.kind)[:1000]


@dataclass(frozen=True)
class Failed:
    """The cell whose check failed in a recording's environment."""

    cell: int
    line: int | None  # in the example file
    kind: str  # one of KEPT_FAILURES
    message: str  # the last line of the traceback: ``AssertionError``, ``RuntimeError: ...``


@dataclass(frozen=True)
class Signature:
    """An Ed25519 signature of a recording and its folder's name, by the key ``key`` names (recordings/attest.py)."""

    key: str  # the key id: 16 hex digits of the sha256 of the raw public key
    ed25519: str  # base64


@dataclass(frozen=True)
class Published:
    """One device's recording of an example, as the build that publishes it sees it."""

    device: str
    recording: Recording | None  # None: never recorded on that device
    # the build's own torch and Python ({"torch": "2.13.0+cpu", "Python": "3.11.7"}): a recording
    # made with other versions says so, since they too change what is printed
    site: dict[str, str] = field(default_factory=dict)
    folder: str = ""  # the folder of recordings it comes from (its environment's name); "": named by its env

    stale: Recording | None = None  # the recording as read, where some of its cells ran other code than now
    unverified: str = ""  # why no trusted key vouches for it (recordings/attest.py); "": attested

    @property
    def environment(self) -> str:
        """The name of the environment: its folder, ``cpu-torch2.14.1-py3.11`` (:func:`environment_id`)."""
        return self.folder or (environment_id(self.recording.env) if self.recording else self.device)

    @classmethod
    def holding(cls, device: str, recording: Recording | None, example: Example, site: dict[str, str] | None = None,
                folder: str = "", unverified: str = "") -> Published:  # fmt: skip
        """What ``example``'s page publishes of ``recording``: the cells that still hold (:func:`current`), and the
        recording as read where some of its cells do not."""
        held = current(recording, example) if recording else None
        stale = recording if recording and not recording.whole(example) else None
        return cls(device, held, site or {}, folder, stale, unverified)


def current(recording: Recording, example: Example) -> Recording | None:
    """What of ``recording`` still holds for ``example`` as it is now: its cells whose key is the example's,
    their outputs citing the example's lines as they are now (source/keys.py); None if no cell holds."""
    held = recording.current(example)
    if not held:
        return None
    move = keys.Relocation(example.source, example.display, recording.lines)
    cells = tuple(move.cell(c) for c in recording.cells if c.cell < held)
    failed = recording.failed
    if failed is not None:
        failed = replace(failed, line=move.line(failed.line)) if failed.cell < held else None
    declared = [replace(f, line=move.line(f.line)) for f in recording.declared if f.cell < held]
    # A claim about an error (raises=) judged on this environment's run: where the exception it recorded is
    # another, that is its failed check, as if an assertion had failed there: one its cell's holds= expects on this
    # torch, or one that stops its output at that cell
    torch = recording.env.get("torch", "")
    for wrong in raises.mismatches(example, cells):
        if failed is not None and wrong.cell.index >= failed.cell:
            break
        message = f'{wrong.actual} (raises= says "{wrong.expected}")'[:1000]
        found = Failed(wrong.cell.index, wrong.cell.header or wrong.cell.lineno, "exception", message)
        if wrong.cell.holds is not None and not wrong.cell.holds.covers(torch):
            declared.append(found)
            continue
        failed = found
        cells = tuple(c for c in cells if c.cell <= found.cell)
        break
    declared = sorted((f for f in declared if failed is None or f.cell < failed.cell), key=lambda f: f.cell)
    return replace(recording, cells=cells, failed=failed, declared=tuple(declared))


# --- files ---------------------------------------------------------------------


def file_of(folder: Path, example_path: str) -> Path:
    return folder / f"{example_path.removesuffix('.py')}.json"


def dumps(recording: Recording) -> str:
    return json.dumps(recording.to_json(), indent=1, ensure_ascii=False) + "\n"


# What read() parsed and checked, by file and the sha256 of its bytes: `serve` rebuilds the site on every edit
# and reads the same few hundred recordings each time; parsing and checking them is what costs
_READ: dict[Path, tuple[bytes, Recording]] = {}


def read(file: Path, folder: Path) -> Recording:
    """The recording in ``file``, checked to be where its example's path puts it under ``folder``."""
    try:
        data = files.read_regular(file, MAX_RECORDING)
        seen = hashlib.sha256(data).digest()
        kept = _READ.get(file)
        recording = kept[1] if kept and kept[0] == seen else Recording.from_json(loads(data.decode("utf-8")))
    except (OSError, UnicodeDecodeError, JSONError) as error:
        raise RecordingError(f"{file}: not a readable recording ({error})") from None
    _READ[file] = (seen, recording)
    if file_of(folder, recording.example).resolve() != file.resolve():
        where = file_of(folder, recording.example)
        raise RecordingError(f"{file}: records {recording.example}, which belongs in {where}")
    return recording


def read_folder(folder: Path) -> dict[str, Recording]:
    """Every recording under ``folder`` by example path; :class:`RecordingError` for the first bad one."""
    found: dict[str, Recording] = {}
    for file in recording_files(folder):
        recording = read(file, folder)
        found[recording.example] = recording
    return found


def snapshot(root: Path, folders: list[str]) -> tuple[tuple[str, int, int, int, int], ...]:
    """What tells whether the files under ``root`` that a build reads changed: each file's path below ``root`` with
    its inode, size and times (``ls -l --time=ctime``), of ``root``'s own files and those under each of ``folders``.

    A file written again changes its ctime, which no tool can set back: `serve` reads the recordings again only
    when this changes, and a fresh process (`mkdocs build`) reads them all.
    """
    found = []
    top = os.fspath(root)
    pending = [top] + [os.path.join(top, name) for name in folders]
    for index, folder in enumerate(pending):
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:  # a folder that is not there (a named environment never recorded): nothing of it
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if index:  # below a published folder; of the root's own, only those published
                    pending.append(entry.path)
                continue
            info = entry.stat(follow_symlinks=False)
            found.append((entry.path[len(top):], info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns))
    return tuple(found)


def recording_files(folder: Path) -> list[Path]:
    """The recordings' files under ``folder``: every ``.json`` file but the manifest."""
    files = sorted(folder.rglob("*.json")) if folder.is_dir() else []
    return [f for f in files if f != folder / MANIFEST]


# --- environments ------------------------------------------------------------------


def release(version: str) -> str:
    """A torch or Python version without its build: ``2.14.1+cu130`` → ``2.14.1``."""
    return version.split("+")[0]


def python_minor(version: str) -> str:
    """``3.11.7`` → ``3.11``: what a Python version changes of outputs."""
    return ".".join(version.split(".")[:2])


def environment_id(env: dict[str, str]) -> str:
    """The folder of recordings made in ``env``: ``cpu-torch2.14.1-py3.11``, ``cuda-torch2.11.0-py3.12``."""
    return f"{env.get('device', '?')}-torch{release(env.get('torch', '?'))}-py{python_minor(env.get('python', '?'))}"


def manifest_of(recordings: list[Recording]) -> dict[str, Any]:
    """The manifest of a folder holding ``recordings``; :class:`RecordingError` if they come from several
    environments (one folder holds one)."""
    if not recordings:
        raise RecordingError("no recordings: an environment's folder needs at least one")
    ids = sorted({environment_id(r.env) for r in recordings})
    if len(ids) > 1:
        raise RecordingError(f"these recordings come from {len(ids)} environments ({', '.join(ids)}): "
                             "record or merge each into a folder of its own")  # fmt: skip
    first = recordings[0].env
    manifest: dict[str, Any] = {"schema": MANIFEST_SCHEMA, "id": ids[0]}
    manifest.update({key: first.get(key, "?") for key in MANIFEST_KEYS})
    if first.get("gpu") and all(r.env.get("gpu") == first["gpu"] for r in recordings):
        manifest["gpu"] = first["gpu"]
    return manifest


def read_manifest(folder: Path) -> dict[str, Any]:
    """The manifest of ``folder``, checked against its schema and the folder's name.

    A folder named after a device alone (the older layout) has none: its manifest is that device.
    """
    file = folder / MANIFEST
    if not file.is_file() and not file.is_symlink():  # a link is refused below, never followed
        if folder.name in DEVICES:
            return {"schema": MANIFEST_SCHEMA, "id": folder.name, "device": folder.name}
        raise RecordingError(
            f"{file}: missing; a folder of recordings names its environment there "
            f"(`mkdocs-examples merge {folder} --into {folder.parent}` writes it)"
        )
    try:
        manifest = validate(loads(files.read_regular(file, MAX_MANIFEST).decode("utf-8")), ENVIRONMENT)
    except (OSError, UnicodeDecodeError, JSONError) as error:
        raise RecordingError(f"{file}: not a readable manifest ({error})") from None
    if manifest["id"] != folder.name:
        raise RecordingError(f"{file}: names the environment {manifest['id']}, but its folder is {folder.name}")
    expected = environment_id(manifest)
    if manifest["id"] != expected:
        raise RecordingError(f"{file}: its device, torch and Python make the id {expected}, not {manifest['id']}")
    return dict(manifest)


def check_manifest(folder: Path, manifest: dict[str, Any], found: dict[str, Recording]) -> None:
    """:class:`RecordingError` for a recording of ``folder`` made elsewhere than its manifest says."""
    keys = [k for k in MANIFEST_KEYS if k in manifest]
    for recording in found.values():
        for key in keys:
            if recording.env.get(key) != manifest[key]:
                raise RecordingError(
                    f"{file_of(folder, recording.example)} was recorded with {key} {recording.env.get(key)!r}, but "
                    f"{folder / MANIFEST} says {manifest[key]!r}: only what that environment recorded belongs there"
                )


def write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def load_published(root: Path, folders: list[str], examples: dict[str, Example]) -> dict[str, dict[str, Recording]]:
    """The recordings under ``root/<folder>/`` for each of ``folders`` that exists, by folder and path.

    :class:`RecordingError` for a file that cannot be read, a manifest that does not match its
    folder, or a recording made elsewhere than its folder's manifest says: nothing is published
    as CUDA unless a CUDA machine recorded it, nor as torch 2.14.1 unless that torch did.
    """
    found: dict[str, dict[str, Recording]] = {}
    for name in folders:
        folder = root / name
        if not folder.is_dir():
            continue
        manifest = read_manifest(folder)
        found[name] = read_folder(folder)
        for recording in found[name].values():
            if recording.device != manifest["device"]:
                raise RecordingError(
                    f"{file_of(folder, recording.example)} was recorded on {recording.device}: only what a "
                    f"{manifest['device']} machine recorded is published as {manifest['device']}"
                )
        check_manifest(folder, manifest, found[name])
    return found


def environment_folders(root: Path) -> list[str]:
    """Every folder of recordings under ``root``, by name: those with a manifest, and those named after a device."""
    if not root.is_dir():
        return []
    return sorted(f.name for f in root.iterdir() if f.is_dir() and not f.name.startswith(".")
                  and ((f / MANIFEST).is_file() or f.name in DEVICES))  # fmt: skip


def stale(found: dict[str, dict[str, Recording]], examples: dict[str, Example]) -> list[tuple[Recording, list[int]]]:
    """The recordings of examples whose code has changed since, with the cells that ran other code than now
    (or that it never reached): pages do not show those cells."""
    listed = []
    for by_path in found.values():
        for path, r in sorted(by_path.items()):
            if path in examples and not r.whole(examples[path]):
                example = examples[path]
                listed.append((r, [c.index for c in example.cells if c.index >= r.current(example)]))
    return listed


def write_folder(
    folder: Path, recordings: list[Recording], *, replace: bool = False, manifest: dict[str, Any] | None = None
) -> None:
    """Write ``recordings`` under ``folder``; with ``replace``, remove every other recording there.

    ``manifest``: the folder's ``environment.json`` (:func:`manifest_of`), written with them.

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
        if manifest is not None:
            write_manifest(staging, manifest)
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


_probed: dict[tuple[str, str, str], dict[str, str]] = {}  # what _probe found, by what it ran and which GPUs it saw


def _probe() -> dict[str, str]:
    """torch's version and the GPU it sees, from a fresh interpreter (it imports torch: seconds); once per process."""
    key = (sys.executable, _PROBE, os.environ.get("CUDA_VISIBLE_DEVICES", "<unset>"))
    if key in _probed:
        return dict(_probed[key])
    why = ""
    try:
        # a release's first import of torch reads its libraries from disk: minutes on a busy machine
        probe = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=600)
        why = (probe.stderr.strip().splitlines() or [f"exit code {probe.returncode}"])[-1]
        found = validate(loads(probe.stdout), f"{RESULT}#/$defs/env")
    except (OSError, subprocess.SubprocessError, JSONError) as error:
        why = why or str(error)
        raise RecordingError(f"cannot tell which torch this machine runs ({why}); nothing was recorded") from error
    _probed[key] = found
    return dict(found)


def environment(device: str = "cpu") -> dict[str, str]:
    """What a recording says about the machine: torch, CUDA, cuDNN, GPU, driver, Python, OS, engine.

    A recording that cannot say which torch (and, on ``cuda``, which GPU) made it is worthless:
    if the probe fails, this raises :class:`RecordingError` instead of writing it without them.
    """
    env = {"python": platform.python_version(), "os": platform.platform(), "engine": __version__}
    env.update(_probe())
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
