"""Helpers several test modules share (imported as ``helpers``: pytest puts tests/ on sys.path)."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from importlib import metadata
from pathlib import Path
from types import ModuleType

from mkdocs.commands.build import build
from mkdocs.config import load_config

ROOT = Path(__file__).parent.parent

sys.path.insert(0, str(ROOT / "tools"))
import search_queries  # noqa: E402, F401  (for the tests) tools/search_queries.py: serves a site, drives its search


def load_file(name: str, path: Path) -> ModuleType:
    """A module of the site that is not a package (tools/*.py), loaded by its path as MkDocs loads a
    site's hooks; registered in sys.modules, where its dataclasses look it up."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = sys.modules[name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_site(root: Path, *, strict: bool = False) -> None:
    """`mkdocs build` of the site at ``root``, in this process, its plugins started and shut down."""
    config = load_config(str(root / "mkdocs.yml"), strict=strict)
    config.plugins.on_startup(command="build", dirty=False)
    try:
        build(config)
    finally:
        config.plugins.on_shutdown()


def tree(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder``, by its path relative to it."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def alive(marker: str) -> list[int]:
    """Processes whose command line contains ``marker``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                found.append(int(pid))
        except OSError:
            pass
    return found


# Whether an element is drawn in the browser: not inside a block that site.css lays out only near the screen and
# has not yet (for such a block itself: its first child)
DRAWN = "e => (e.firstElementChild || e).checkVisibility({contentVisibilityAuto: true})"

BUILT_TORCH = metadata.version("torch")  # the torch the tests' builds run


# What the name of an environment adds for PyPI's wheel of a release, a CUDA build, run on a CPU (the build runs a
# CPU build): by language
NO_GPU = {"en": " · CUDA build, no GPU", "zh": " · CUDA 版本，无 GPU"}


def release_label(folder: Path, lang: str = "en") -> str:
    """The label beside an output of the CPU recordings of ``folder``, a release on the build's Python, read from
    its manifest: ``torch 2.4.1 · CUDA build, no GPU`` for a CUDA build (``2.4.1+cu121``)."""
    torch = json.loads((folder / "environment.json").read_text())["torch"]
    return f"torch {torch.split('+')[0]}" + (NO_GPU[lang] if "+cu" in torch else "")


def cpu_releases() -> list[tuple[str, Path]]:
    """Each torch release recorded on a CPU in this repository but the build's own, and the folder whose
    outputs the picker shows for it (from its manifest): of two Pythons of one release, the first by name, as
    publish/picker.py's ``recorded`` picks (the build's Python, 3.11, before the GPU machine's 3.12)."""
    found: dict[str, Path] = {}
    for manifest in sorted((ROOT / "recordings").glob("*/environment.json")):
        env = json.loads(manifest.read_text())
        release = env["torch"].split("+")[0]
        if env["device"] == "cpu" and release != BUILT_TORCH.split("+")[0]:
            found.setdefault(release, manifest.parent)
    return list(found.items())
