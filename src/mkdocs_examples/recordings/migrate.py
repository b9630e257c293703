"""``migrate``: key the recordings of schema 1 (the sha256 of the whole example file) per cell, losing nothing.

    python -m mkdocs_examples migrate [recordings]    # every folder of recordings under it, in place

A schema-1 recording names the sha256 of the exact source it ran. That source is in the
repository's history: the blob of ``<examples>/<path>`` whose sha256 is that digest, in any
commit, the index or the working tree. From it, ``migrate`` computes the keys of the cells
as they ran (source/keys.py) and ties the lines its outputs cite to tokens, and rewrites the
recording as schema 2 with everything else unchanged: its date, machine, outputs and durations.

It then says, per environment, how many recorded cells still hold for the examples as they
are now (their code has not changed since), and lists those that became stale. A recording
whose source is found nowhere is left as it is and named: the build refuses it until it is
recorded again, never misreads it.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from mkdocs_examples.execute.cache import lines_of
from mkdocs_examples.recordings import store
from mkdocs_examples.recordings.store import Recording
from mkdocs_examples.results import RESULT
from mkdocs_examples.schema import JSONError, loads, validate
from mkdocs_examples.settings import Site
from mkdocs_examples.source.cells import Example, find_examples, read_example
from mkdocs_examples.source.keys import support_digest


def sources_in_history(root: Path, relative: str) -> dict[str, str]:
    """Every version of the file ``relative`` (to the git work tree at ``root``) that git has, by its sha256:
    in each commit of every ref, in the index and in the working tree."""
    found: dict[str, str] = {}
    file = root / relative
    if file.is_file():
        data = file.read_bytes()
        found[hashlib.sha256(data).hexdigest()] = data.decode("utf-8", "replace")
    listed = subprocess.run(["git", "-C", str(root), "log", "--all", "--format=%H", "--", relative],
                            capture_output=True, text=True)  # fmt: skip
    blobs = []
    for spec in [*(f"{c}:{relative}" for c in listed.stdout.split()), f":{relative}"]:
        blob = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "-q", spec],
                              capture_output=True, text=True).stdout.strip()  # fmt: skip
        if blob and blob not in blobs:
            blobs.append(blob)
    for blob in blobs:
        data = subprocess.run(["git", "-C", str(root), "cat-file", "blob", blob], capture_output=True).stdout
        found.setdefault(hashlib.sha256(data).hexdigest(), data.decode("utf-8", "replace"))
    return found


def migrated(data: dict[str, Any], example: Example) -> Recording:
    """The schema-2 recording of the schema-1 ``data``, which ran ``example`` (its source as it was then)."""
    old = dict(data, schema=store.SCHEMA, keys=list(example.keys), lines={}, scheme=store.keys.SCHEME)
    old.pop("digest")
    recording = Recording.from_json(old)  # checked against the schema, as every recording is
    failed = recording.failed.line if recording.failed else None
    return replace(recording, lines=lines_of(example, recording.cells, [failed]))


def _named_here(path: str, file: Path, folder: Path) -> bool:
    """Whether ``path`` is an example's path (the schema's pattern) and the one ``file``'s place in ``folder`` gives."""
    try:
        validate(path, f"{RESULT}#/$defs/example")
    except JSONError:
        return False
    return store.file_of(folder, path) == file


def migrate(site: Site, root: Path) -> int:
    top = subprocess.run(["git", "-C", str(site.root), "rev-parse", "--show-toplevel"],
                         capture_output=True, text=True)  # fmt: skip
    if top.returncode != 0:
        print(f"error: {site.root} is not in a git work tree: the sources recordings ran are found in its history",
              file=sys.stderr)  # fmt: skip
        return 2
    repo = Path(top.stdout.strip())
    folder = site.examples_dir.relative_to(repo).as_posix()
    support = support_digest(site.examples_dir)
    now = {p: read_example(site.examples_dir, p, site.config.folder) for p in find_examples(site.examples_dir, [])}
    history: dict[str, dict[str, str]] = {}
    lost: list[str] = []
    total = {"recordings": 0, "cells": 0, "held": 0}
    for name in store.environment_folders(root):
        env_folder = root / name
        counts = {"migrated": 0, "already": 0, "cells": 0, "held": 0}
        stale: list[str] = []
        for file in store.recording_files(env_folder):
            try:
                data = loads(file.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, JSONError) as error:
                lost.append(f"{file}: not readable ({error})")
                continue
            if not isinstance(data, dict) or data.get("schema") != 1:
                recording = store.read(file, env_folder)  # a schema-2 recording: counted as it is
                counts["already"] += 1
            else:
                path = str(data.get("example", ""))
                if not _named_here(path, file, env_folder):  # before its path reaches git
                    lost.append(f"{file}: names the example {path!r}, which is not the one its place gives")
                    continue
                if path not in history:
                    history[path] = sources_in_history(repo, f"{folder}/{path}")
                source = history[path].get(str(data.get("digest")))
                if source is None:
                    lost.append(f"{file}: no version of {folder}/{path} in git has its sha256; record it again")
                    continue
                example = Example.from_source(path, site.examples_dir / path, source, site.config.folder, support)
                recording = migrated(data, example)
                file.write_text(store.dumps(recording), encoding="utf-8")
                counts["migrated"] += 1
            cells = [c for c in recording.cells if not c.skipped]
            counts["cells"] += len(cells)
            if recording.example in now:
                held = recording.current(now[recording.example])
                counts["held"] += sum(1 for c in cells if c.cell < held)
                stale += [f"{recording.example} cell {c.cell}" for c in cells if c.cell >= held]
        print(f"{name}: {counts['migrated']} recordings migrated, {counts['already']} already keyed per cell; "
              f"{counts['held']} of {counts['cells']} recorded cells hold for the examples as they are")  # fmt: skip
        for line in stale:
            print(f"  stale: {line}")
        total["recordings"] += counts["migrated"]
        total["cells"] += counts["cells"]
        total["held"] += counts["held"]
    for line in lost:
        print(f"not migrated: {line}", file=sys.stderr)
    print(json.dumps(total))
    return 1 if lost else 0
