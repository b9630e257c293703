"""The version matrix: which torch releases the CPU workflow records every example under, with which Python.

The list lives in one place, the plugin's ``versions:`` options in mkdocs.yml::

    versions:
      python: "3.11"      # the build's Python
      shards: 2           # jobs per release
      releases:           # minor release: the Pythons PyTorch publishes its wheels for
        "2.4": 3.8-3.12
        "2.15": 3.11-3.15

``python -m mkdocs_examples versions`` prints the workflow's matrix from it (a job per release
and shard), so that ``.github/workflows/versions.yml`` reads the list instead of keeping a copy.

The rule for each release's Python (:func:`python_for`): the build's Python where the release has
wheels for it, so that what differs from the build's outputs is the torch release alone; else the
Python of its window nearest to the build's (the newer of two as near), never one older than
:data:`OLDEST_PYTHON`, the oldest the engine runs on.
"""

from __future__ import annotations

import re
from typing import Any

OLDEST_PYTHON = (3, 11)  # the engine's requires-python (pyproject.toml)

_RELEASE = re.compile(r"^[1-9]\d*\.\d+$")
_WINDOW = re.compile(r"^(3)\.(\d+)-(3)\.(\d+)$")
_PYTHON = re.compile(r"^3\.\d+$")


class MatrixError(ValueError):
    """A ``versions:`` option that cannot give a matrix, with what to write instead."""


def _minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


def window(release: str, spec: object) -> tuple[tuple[int, int], tuple[int, int]]:
    """The oldest and newest Python of ``spec`` (``"3.8-3.12"``), the Pythons ``release`` has wheels for."""
    found = _WINDOW.match(spec) if isinstance(spec, str) else None
    if not found or int(found[2]) > int(found[4]):
        raise MatrixError(f"versions: releases: {release}: {spec!r}; expected the Pythons it has wheels for, "
                          "oldest-newest, e.g. 3.9-3.13")  # fmt: skip
    return (3, int(found[2])), (3, int(found[4]))


def python_for(release: str, spec: object, python: str) -> str:
    """The Python that ``release`` is recorded under: ``python`` (the build's) where the release has wheels
    for it, else the nearest one it has (the newer of two as near), never one older than :data:`OLDEST_PYTHON`."""
    oldest, newest = window(release, spec)
    wanted = _minor(python)
    usable = [(3, m) for m in range(max(oldest, OLDEST_PYTHON)[1], newest[1] + 1)]
    if not usable:
        need = ".".join(map(str, OLDEST_PYTHON))
        raise MatrixError(f"versions: releases: torch {release} has wheels for Python {spec} only, and the engine "
                          f"needs Python {need} or newer: leave the release out")  # fmt: skip
    best = min(usable, key=lambda p: (abs(p[1] - wanted[1]), -p[1]))
    return f"{best[0]}.{best[1]}"


def releases(options: Any) -> dict[str, str]:
    """Each release of the ``versions:`` options, oldest first, with the Python it is recorded under."""
    python = str(options.python)
    if not _PYTHON.match(python):
        raise MatrixError(f"versions: python: {options.python!r}; expected the build's Python, e.g. \"3.11\"")
    chosen = {}
    for release, spec in dict(options.releases).items():
        if not isinstance(release, str) or not _RELEASE.match(release):
            raise MatrixError(f"versions: releases: {release!r} is not a minor release written as a string: "
                              'quote it, e.g. "2.10" (unquoted, YAML reads 2.10 as the number 2.1)')  # fmt: skip
        chosen[release] = python_for(release, spec, python)
    return dict(sorted(chosen.items(), key=lambda item: _minor(item[0])))


def jobs(options: Any) -> list[dict[str, str]]:
    """The workflow's jobs: one per release and shard, ``{"torch": "2.4", "python": "3.11", "shard": "1/2"}``."""
    if options.shards < 1:
        raise MatrixError(f"versions: shards: {options.shards}; at least 1")
    return [
        {"torch": release, "python": python, "shard": f"{k}/{options.shards}"}
        for release, python in releases(options).items()
        for k in range(1, options.shards + 1)
    ]
