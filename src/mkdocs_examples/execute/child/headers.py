"""Inductor's precompiled headers: built once per machine by the worker, shown read-only to examples.

``torch.compile`` on CPU compiles its C++ kernels against a precompiled header of torch's
(``cpp_prefix.h``, 150 MB once compiled). Building it costs seconds of CPU, more than the rest
of a small compile. Inductor keeps it in ``$TMPDIR/torchinductor_<user>/precompiled_headers``
(:func:`folder_in`), and each example's TMPDIR is its own: the examples of one worker share that
folder (:attr:`.sandbox.Prepared.headers`), so one build compiles it once.

Once per machine would do, but a header an example built cannot be trusted beyond its own build:
what it left there would reach the examples of the next build, another change. So the worker
builds the headers itself (:func:`begin`, :func:`finish`), in a process of its own that runs the
engine's code only: a small function compiled as an example compiles one. The worker runs the
examples meanwhile, on a core fewer, and holds back those that compile until the headers are
there. It keeps them in a store of its own, one folder per torch, compiler and path of torch
(:func:`default_store`, :func:`_key`), and each example sees them read-only, bound over files of
the same names in its build's shared folder (:func:`.mounts.build`). An example whose compile asks
for a header of another name (other compiler flags) builds that one in its build's shared folder,
for the examples after it.
"""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from mkdocs_examples.execute.child import processes

BUILDING = 300.0  # seconds the worker gives the compile before it gives up (a minute is usual on a busy machine)
TORCH = "torch-folder"  # in a folder of the store: the folder of the torch it was built for, for `cache prune`


def default_store() -> Path:
    """Where the worker keeps the headers it built: the user's cache folder, shared by every clone."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base, "mkdocs-examples", "inductor-headers")


def folder_in(tmpdir: Path) -> Path:
    """The folder where inductor looks for its precompiled headers, for a process whose TMPDIR is ``tmpdir``."""
    user = re.sub(r'[\\/:*?"<>|]', "_", getpass.getuser())
    return tmpdir / f"torchinductor_{user}" / "precompiled_headers"


@dataclass
class Build:
    """The headers being built for ``folder`` of the store, by the process ``pid`` (a group of its own)."""

    pid: int
    folder: Path
    work: Path
    torch_folder: str
    deadline: float  # past it, the build is killed and counts as failed
    status: int | None = None  # its exit status, once it has ended and been reaped


def prepare(store: Path, scratch: Path, shared: Path) -> tuple[Path, ...]:
    """In the worker, after it imported torch: the headers of ``store`` for this torch and compiler,
    built first where it has none (:func:`begin`, then :func:`finish`); an empty file of each name in
    ``shared``, the folder its examples share, for them to be bound over. None: without torch, or where
    they cannot be built."""
    found = begin(store, scratch, shared)
    if isinstance(found, Build):
        wait(found)
        return finish(found, shared)
    return found


def begin(store: Path, scratch: Path, shared: Path) -> tuple[Path, ...] | Build:
    """The headers of ``store`` for this torch and compiler, shown in ``shared``; where it has none, their
    build, started (the worker runs examples meanwhile, and :func:`finish` ends it)."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.__file__:
        return ()
    torch_folder = os.path.dirname(os.path.abspath(torch.__file__))
    folder = store / _key(str(torch.__version__), torch_folder)
    if not folder.is_dir():
        return _start(folder, Path(tempfile.mkdtemp(prefix="headers-", dir=scratch)), torch_folder)
    return _show(folder, shared)


def _show(folder: Path, shared: Path) -> tuple[Path, ...]:
    found = tuple(sorted(p for p in folder.glob("*") if p.suffix in (".h", ".gch") and _regular(p)))
    for header in found:
        (shared / header.name).touch()
    return found


def _regular(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def _key(torch_version: str, torch_folder: str) -> str:
    """The store's folder for this torch and C++ compiler (inductor's: $CXX, else g++ or clang++ on macOS),
    at these paths. Inductor names a header by a hash of its compile command, which names the folders of
    torch's and Python's headers and libraries as imported (a virtualenv reached through a link: the link's
    path): a torch imported from another path looks for a header of another name, and has a folder of its own."""
    cxx = os.environ.get("CXX") or ("clang++" if sys.platform == "darwin" else "g++")
    try:
        compiler = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        compiler = ""
    paths = [torch_folder, sysconfig.get_path("include"), str(sysconfig.get_config_var("LIBDIR"))]
    digest = hashlib.sha256("\n".join([torch_version, cxx, compiler, *paths]).encode()).hexdigest()[:16]
    return f"torch-{torch_version}-{digest}"


def _start(folder: Path, work: Path, torch_folder: str) -> Build:
    """Compile a small function in a fork whose TMPDIR is in ``work``, for :func:`finish` to move the headers
    it built into ``folder``."""
    try:
        pid = os.fork()
    except OSError:
        shutil.rmtree(work, ignore_errors=True)
        raise
    if pid == 0:
        code = 1
        with contextlib.suppress(BaseException):
            os.setsid()  # a group of its own, killed as one past BUILDING
            processes.die_with_parent()
            _compile(work)
            code = 0
        os._exit(code)
    return Build(pid, folder, work, torch_folder, time.monotonic() + BUILDING)


def finish(build: Build, shared: Path | None) -> tuple[Path, ...]:
    """Once ``build`` has ended (its ``status`` set): move the headers it built into its folder at once
    (another worker may be doing the same: the first to finish is kept), and show them in ``shared``.
    Where the compile failed, the folder is made empty: it is not tried again for this torch and
    compiler, and each build's examples build the headers they need among themselves."""
    try:
        built = folder_in(build.work / "tmp")
        found = list(built.iterdir()) if build.status == 0 and built.is_dir() else []
        build.folder.parent.mkdir(parents=True, exist_ok=True)
        staged = Path(tempfile.mkdtemp(prefix=".staged-", dir=build.folder.parent))
        for header in found:
            if header.suffix in (".h", ".gch") and _regular(header):
                os.replace(header, staged / header.name)
        (staged / TORCH).write_text(build.torch_folder, encoding="utf-8")
        try:
            staged.rename(build.folder)
        except OSError:
            shutil.rmtree(staged, ignore_errors=True)
    finally:
        shutil.rmtree(build.work, ignore_errors=True)
    return _show(build.folder, shared) if shared is not None else ()


def kill(build: Build) -> None:
    """End ``build`` now, and reap it (a worker that ends, or a build past its deadline)."""
    with contextlib.suppress(OSError):
        os.killpg(build.pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        build.status = os.waitpid(build.pid, 0)[1]
    if build.status is None:
        build.status = -1


def unused(store: Path) -> list[Path]:
    """The folders of ``store`` built for a torch that is gone (a removed clone or virtualenv), or whose torch
    is not known: no build can use them, or one rebuilds them at its start."""
    found = []
    for folder in sorted(store.glob("torch-*")) if store.is_dir() else []:
        try:
            torch_folder = (folder / TORCH).read_text(encoding="utf-8")
        except OSError:
            torch_folder = ""
        if folder.is_dir() and not (torch_folder and os.path.isdir(torch_folder)):
            found.append(folder)
    return found


def usage(store: Path) -> tuple[int, int]:
    """How many folders ``store`` holds, and their bytes."""
    folders = [f for f in store.glob("torch-*") if f.is_dir()] if store.is_dir() else []
    return len(folders), sum(p.stat().st_size for f in folders for p in f.iterdir() if _regular(p))


def wait(build: Build) -> None:
    """Wait for ``build`` to end, and reap it; past its deadline it is killed (:func:`kill`)."""
    while time.monotonic() < build.deadline:
        done, status = os.waitpid(build.pid, os.WNOHANG)
        if done:
            build.status = status
            return
        time.sleep(0.05)
    kill(build)


def _compile(work: Path) -> None:
    """In the fork: what an example's first ``torch.compile`` on CPU does, with a TMPDIR and cache in ``work``."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    (work / "tmp").mkdir()
    os.environ.update(TMPDIR=str(work / "tmp"), TORCHINDUCTOR_CACHE_DIR=str(work / "inductor"))
    tempfile.tempdir = None
    import torch

    torch.set_num_threads(1)
    compiled = torch.compile(  # one compiler thread: no pool of compiler processes to end afterwards
        lambda x: torch.sin(x) ** 2 + torch.cos(x) ** 2, options={"compile_threads": 1}
    )
    compiled(torch.randn(64))
