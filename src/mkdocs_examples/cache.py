"""Content-addressed store of example results.

A key covers everything that can change what an example prints: its bytes and path,
the engine (version and the source of the modules that execute), Python, the versions
of torch and the preloaded packages, the device and the run options. Entries are
written atomically, and an entry that cannot be read is a miss, never an error.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import tempfile
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from typing import Any

from mkdocs_examples import __version__
from mkdocs_examples.cells import Example
from mkdocs_examples.runner import Options

_EXECUTING = ("cells.py", "runner.py", "pool.py")  # engine modules whose change can change outputs


def detect_device(setting: str = "auto") -> str:
    """``cuda`` where a CUDA build of torch can see a GPU, else ``cpu``; decided without importing torch."""
    if setting != "auto":
        return setting
    try:
        version = metadata.version("torch")
    except metadata.PackageNotFoundError:
        return "cpu"
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if "+cpu" in version or visible in ("", "-1") or not os.path.exists("/dev/nvidiactl"):
        return "cpu"
    return "cuda"


def fingerprint(options: Options, preload: list[str]) -> dict[str, Any]:
    """Everything but the example itself that goes into a key."""
    here = Path(__file__).parent
    engine = hashlib.sha256(b"".join((here / name).read_bytes() for name in _EXECUTING)).hexdigest()[:16]
    return {
        "engine": f"{__version__}+{engine}",
        "python": platform.python_version(),
        "packages": {name: _version(name) for name in sorted({"torch", *(m.split(".")[0] for m in preload)})},
        "options": asdict(options),
    }


def cache_key(example: Example, fingerprint: dict[str, Any]) -> str:
    payload = {"path": example.path, "source": example.digest, **fingerprint}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


class Cache:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _file(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            entry = json.loads(self._file(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("key") != key or not isinstance(entry.get("result"), dict):
            return None
        return entry["result"]

    def put(self, key: str, result: dict[str, Any]) -> None:
        """Store ``result``: written to a temporary file, then renamed over the entry."""
        file = self._file(key)
        file.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=file.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump({"key": key, "result": result}, handle, sort_keys=True)
            os.replace(temporary, file)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"
