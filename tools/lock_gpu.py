"""Write requirements-gpu.txt: what the GPU job installs, pinned, with the hash of every file pip could pick there.

The GPU job (.github/workflows/gpu.yml) installs, inside a python:3.11 container (Debian
bookworm: glibc 2.36) on Linux x86-64,

    pip install --require-hashes --only-binary :all: -r requirements-gpu.txt

so that nothing but these exact files can be installed there. What goes in:

- the roots: what the examples import (torch, numpy, matplotlib) and the engine's own
  dependencies (pyproject.toml), at the versions requirements.txt pins. On Linux, PyPI's
  torch wheel is the CUDA build; requirements.txt's other pins come from the CPU build;
- everything they need there, read from each wheel's own metadata (PyPI's ``.metadata``
  files, PEP 658), markers evaluated for that machine: at the version requirements.txt
  pins, or that the requirement pins exactly (torch pins its CUDA libraries), or else the
  newest release that satisfies every requirement met so far and has a wheel for it;
- for each, the sha256 of every wheel of that version whose tags pip accepts there, from
  PyPI's JSON API (``/pypi/<name>/<version>/json``, or the release in ``/pypi/<name>/json``).

Run it (``make lock-gpu``) after changing requirements.txt; a test checks that the two agree.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import tomllib
import urllib.error
import urllib.request
import zipfile
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import HeaderParser
from pathlib import Path
from urllib.parse import urljoin

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parent.parent
PYPI = "https://pypi.org/pypi"
ROOTS = ("torch", "numpy", "matplotlib")  # what the examples import
PYTHON = (3, 11)
GLIBC_MINOR = 36  # glibc 2.36: Debian bookworm, the base of the python:3.11 image
# The machine the job installs on, as environment markers see it (PEP 508)
MARKERS = {
    "implementation_name": "cpython",
    "implementation_version": "3.11.0",
    "os_name": "posix",
    "platform_machine": "x86_64",
    "platform_python_implementation": "CPython",
    "platform_release": "",
    "platform_system": "Linux",
    "platform_version": "",
    "python_full_version": "3.11.0",
    "python_version": "3.11",
    "sys_platform": "linux",
}

Fetch = Callable[[str], bytes]


class LockError(Exception):
    """The lock cannot be written; the message says which package and what to do."""


def target_tags() -> dict[Tag, int]:
    """Every wheel tag pip accepts on that machine (CPython 3.11, manylinux up to glibc 2.36, x86-64),
    with its rank in pip's order of preference: the most specific first."""
    platforms = [f"manylinux_2_{minor}_x86_64" for minor in range(GLIBC_MINOR, 4, -1)]
    platforms += ["manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64", "linux_x86_64"]
    interpreter = f"cp{PYTHON[0]}{PYTHON[1]}"
    ordered = [*cpython_tags(PYTHON, abis=[interpreter], platforms=platforms),
               *compatible_tags(PYTHON, interpreter, platforms)]  # fmt: skip
    return {tag: rank for rank, tag in reversed(list(enumerate(ordered)))}


def fetch_url(url: str) -> bytes:
    """The body of ``url``; :class:`LookupError` for a 404, :class:`LockError` for anything else."""
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            return response.read()
    except urllib.error.HTTPError as error:
        if error.code == 404:
            raise LookupError(url) from None
        raise LockError(f"{url}: HTTP {error.code}") from None
    except OSError as error:
        raise LockError(f"{url}: {error}") from None


@dataclass
class Resolver:
    pins: dict[str, str]  # requirements.txt: canonical name -> version
    fetch: Fetch = fetch_url
    tags: dict[Tag, int] = field(default_factory=target_tags)  # tag -> rank
    chosen: dict[str, str] = field(default_factory=dict)  # name -> version
    wanted_by: dict[str, list[tuple[SpecifierSet, str]]] = field(default_factory=dict)
    _files: dict[tuple[str, str], list[dict]] = field(default_factory=dict)
    _projects: dict[str, dict] = field(default_factory=dict)

    def resolve(self, roots: list[Requirement]) -> None:
        """Choose a version of every package the roots need on that machine."""
        extras: dict[str, set[str]] = {}
        queue = deque((root, "requirements.txt", frozenset({""})) for root in roots)
        while queue:
            requirement, by, by_extras = queue.popleft()
            marker = requirement.marker
            if marker and not any(marker.evaluate({**MARKERS, "extra": extra}) for extra in by_extras):
                continue
            name: str = canonicalize_name(requirement.name)
            self.wanted_by.setdefault(name, []).append((requirement.specifier, by))
            new = set(requirement.extras) - extras.get(name, set())
            if name in self.chosen and not new:
                continue
            extras.setdefault(name, set()).update(requirement.extras)
            if name not in self.chosen:
                self.chosen[name] = self._version(name, requirement)
            for line in self._requires(name, self.chosen[name]):
                queue.append((Requirement(line), name, frozenset({"", *extras[name]})))
        for name, wanted in sorted(self.wanted_by.items()):
            for specifier, by in wanted:
                if not specifier.contains(self.chosen[name], prereleases=True):
                    raise LockError(
                        f"{name} {self.chosen[name]} does not satisfy {by}'s requirement {name}{specifier}: "
                        f"pin a version of {name} that does in requirements.txt"
                    )

    def hashes(self, name: str) -> list[str]:
        """The sha256 of every wheel of the chosen version that pip could pick on that machine."""
        wheels = self._wheels(name, self.chosen[name])
        return sorted({wheel["digests"]["sha256"] for wheel in wheels})

    # --- PyPI -------------------------------------------------------------------

    def _version(self, name: str, requirement: Requirement) -> str:
        if name in self.pins:
            return self.pins[name]
        exact = [s.version for s in requirement.specifier if s.operator in ("==", "===") and "*" not in s.version]
        if exact:
            return exact[0]
        wanted = [specifier for specifier, _ in self.wanted_by[name]]
        releases = self._project(name).get("releases", {})
        candidates = []
        for text in releases:
            try:
                version = Version(text)
            except InvalidVersion:
                continue
            if not version.is_prerelease and all(s.contains(version) for s in wanted):
                candidates.append(version)
        for version in sorted(candidates, reverse=True):
            if self._wheels(name, str(version), required=False):
                return str(version)
        raise LockError(f"no release of {name} satisfies {', '.join(map(str, wanted))} with a wheel for that machine")

    def _project(self, name: str) -> dict:
        if name not in self._projects:
            try:
                self._projects[name] = json.loads(self.fetch(f"{PYPI}/{name}/json"))
            except LookupError:
                raise LockError(f"{name}: no such project on PyPI") from None
        return self._projects[name]

    def _release_files(self, name: str, version: str) -> list[dict]:
        if (name, version) not in self._files:
            url = f"{PYPI}/{name}/{version}/json"
            try:
                files = [{**f, "url": urljoin(url, f["url"])} for f in json.loads(self.fetch(url))["urls"]]
            except LookupError:  # a mirror may serve only the project's page: take the release from it
                url = f"{PYPI}/{name}/json"
                release = self._project(name).get("releases", {}).get(version)
                if release is None:
                    raise LockError(f"{name} {version}: no such release on PyPI") from None
                files = [{**f, "url": urljoin(url, f["url"])} for f in release]
            self._files[(name, version)] = files
        return self._files[(name, version)]

    def _wheels(self, name: str, version: str, *, required: bool = True) -> list[dict]:
        wheels = []
        for file in self._release_files(name, version):
            if file.get("packagetype") != "bdist_wheel" or file.get("yanked"):
                continue
            _, _, _, tags = parse_wheel_filename(file["filename"])
            if any(tag in self.tags for tag in tags):
                wheels.append(file)
        if not wheels and required:
            raise LockError(
                f"{name} {version} has no wheel for CPython 3.11 on Linux x86-64 (the job installs only wheels): "
                f"pin a version of {name} that has one in requirements.txt"
            )
        return wheels

    def _requires(self, name: str, version: str) -> list[str]:
        """Requires-Dist of the wheel pip would pick there (its PEP 658 metadata file)."""
        wheels = self._wheels(name, version)
        best = min(wheels, key=lambda wheel: self._rank(wheel["filename"]))
        try:
            metadata = self.fetch(best["url"] + ".metadata")
        except LookupError:  # no PEP 658 file: read it from the wheel itself, checked against its hash
            metadata = _wheel_metadata(best, self.fetch)
        return HeaderParser().parsestr(metadata.decode("utf-8")).get_all("Requires-Dist") or []

    def _rank(self, filename: str) -> int:
        """Lower is preferred, as pip prefers it."""
        _, _, _, tags = parse_wheel_filename(filename)
        return min(self.tags.get(tag, len(self.tags)) for tag in tags)


def _wheel_metadata(wheel: dict, fetch: Fetch) -> bytes:
    data = fetch(wheel["url"])
    if hashlib.sha256(data).hexdigest() != wheel["digests"]["sha256"]:
        raise LockError(f"{wheel['filename']}: the downloaded file does not have the sha256 PyPI lists for it")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = [n for n in archive.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
        if len(names) != 1:
            raise LockError(f"{wheel['filename']}: not a wheel with one .dist-info/METADATA")
        return archive.read(names[0])


def read_pins(requirements: Path) -> dict[str, str]:
    """``name==version`` lines of a requirements file, by canonical name (``-e`` lines and comments skipped)."""
    pins: dict[str, str] = {}
    for number, raw in enumerate(requirements.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        name, sep, version = line.partition("==")
        if not sep:
            raise LockError(f"{requirements}:{number}: {line!r} is not pinned with ==: pin every package exactly")
        pins[canonicalize_name(name.strip())] = version.strip()
    return pins


def roots(pins: dict[str, str], pyproject: Path) -> list[Requirement]:
    """The examples' packages and the engine's dependencies, at requirements.txt's versions."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    engine = [Requirement(line).name for line in project["dependencies"]]
    found = []
    for name in (*ROOTS, *engine):
        version = pins.get(canonicalize_name(name))
        if version is None:
            raise LockError(f"requirements.txt pins no version of {name}, which the GPU job needs: pin it there")
        found.append(Requirement(f"{name}=={version}"))
    return found


def render(resolver: Resolver) -> str:
    lines = [
        "# Written by tools/lock_gpu.py from requirements.txt and pyproject.toml: do not edit, run `make lock-gpu`.",
        "# What the GPU job (.github/workflows/gpu.yml) installs in its python:3.11 container on Linux x86-64:",
        "#   pip install --require-hashes --only-binary :all: -r requirements-gpu.txt",
        "# Each package lists the hash of every wheel pip could pick there (CPython 3.11, glibc 2.36).",
    ]
    for name in sorted(resolver.chosen):
        hashes = resolver.hashes(name)
        by = sorted({by for _, by in resolver.wanted_by[name]})
        lines.append(f"{name}=={resolver.chosen[name]} \\")
        lines += [f"    --hash=sha256:{digest} \\" for digest in hashes[:-1]]
        lines.append(f"    --hash=sha256:{hashes[-1]}")
        lines.append(f"    # via {', '.join(by)}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None, fetch: Fetch = fetch_url) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the folder of requirements.txt and pyproject.toml")
    parser.add_argument("--out", type=Path, help="default: requirements-gpu.txt in --root")
    args = parser.parse_args(argv)
    out = args.out or args.root / "requirements-gpu.txt"
    try:
        pins = read_pins(args.root / "requirements.txt")
        resolver = Resolver(pins, fetch)
        resolver.resolve(roots(pins, args.root / "pyproject.toml"))
        text = render(resolver)
    except LockError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    out.write_text(text, encoding="utf-8")
    print(f"{out}: {len(resolver.chosen)} packages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
