"""Record every example on this machine's CPU under one torch release: ``make record-release TORCH=2.4.1``.

    python tools/record_release.py 2.4.1 [--python python3.11] [--keep-venv]

1. makes a throwaway virtualenv, ``.cache/releases/<release>/venv``, and installs that torch
   from PyPI (a CUDA build there, which runs on the CPU), with numpy, matplotlib and the
   engine's dependencies at the pins of requirements.txt, the torchvision built for that torch
   (cells tagged ``requires-torchvision`` run there and nowhere on the build's CPU torch; where
   pip finds none, they are skipped), tensorboard at its pin (cells tagged ``requires-tensorboard``,
   likewise) and the engine from this checkout (a copy: editing the checkout meanwhile changes
   nothing of a recording under way);
2. records every example into ``.cache/releases/<release>/out`` with ``record --device cpu
   --keep-failed --resume``: a check that fails on that release is kept as a finding. The release's
   recordings already in ``recordings/`` are copied there first, so that an example they hold as it
   is now is kept and only new and changed examples run (``--all``: every example runs);
3. merges them into ``recordings/cpu-torch<release>-py<minor>/`` (``merge --allow-missing``);
4. deletes the virtualenv (several GB).

Interrupted, it resumes: an installed virtualenv is reused and examples already recorded are
kept. A release that pip cannot install for this Python and platform is not a hole: the
folder's manifest says so (``"installable": false`` and pip's reason), and the site shows it.
A constraint file that caps torch (``PIP_CONSTRAINT``) is ignored here: the release is the point.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# besides torch, what a recording needs: what the examples import, and what the engine imports
PINNED = ("numpy", "matplotlib", "mkdocs", "pymdown-extensions")
# what some cells need (tagged ``requires-<name>``), at the pins of requirements.txt: where pip cannot install it
# beside that torch, those cells are skipped there, as on a machine without it
OPTIONAL = ("tensorboard",)


def pins(requirements: Path, names: tuple[str, ...] = PINNED) -> list[str]:
    """The ``name==version`` lines of ``requirements`` for ``names``."""
    found = {}
    for line in requirements.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)==([^\s#;]+)", line)
        if match and match[1].lower() in names:
            found[match[1].lower()] = f"{match[1]}=={match[2]}"
    missing = [name for name in names if name not in found]
    if missing:
        raise SystemExit(f"error: {requirements} pins no {', '.join(missing)}")
    return [found[name] for name in names]


def torchvision(release: str) -> str:
    """The torchvision releases built for torch ``release``: 0.19.* for 2.4.1 (each torch 2.x has torchvision
    0.(x+15)); pip picks the one whose pin is this very torch."""
    major, feature, _ = release.split(".")
    if major != "2":
        raise SystemExit(f"error: which torchvision goes with torch {release} is not known here")
    return f"torchvision==0.{int(feature) + 15}.*"


def run(command: list[str], log: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    """Run ``command``, echoing its output and appending it to ``log``."""
    print("$ " + " ".join(command), flush=True)
    with log.open("a", encoding="utf-8") as out:
        out.write("$ " + " ".join(command) + "\n")
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs)  # type: ignore[call-overload]
        lines = []
        assert process.stdout is not None
        for line in process.stdout:
            print(line, end="", flush=True)
            out.write(line)
            lines.append(line)
        process.wait()
    return subprocess.CompletedProcess(command, process.returncode, "".join(lines), "")


def not_installable(release: str, python: str, reason: str, recordings: Path) -> int:
    """Write the manifest of a release pip cannot install here: a fact the site shows, not a hole."""
    minor = ".".join(python.split(".")[:2])
    folder = recordings / f"cpu-torch{release}-py{minor}"
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"schema": 1, "id": folder.name, "device": "cpu", "torch": release, "python": python,
                "installable": False, "reason": reason[-300:] or "pip found no wheel",
                "platform": f"{platform.system().lower()} {platform.machine()}"}  # fmt: skip
    (folder / "environment.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(f"torch {release} cannot be installed on Python {minor} here: {manifest['reason']}\n"
          f"wrote {folder / 'environment.json'}, which the site shows as that fact")  # fmt: skip
    return 3


def minor(python: Path) -> str:
    """``python``'s version without its patch: 3.11."""
    version = subprocess.run([str(python), "-c", "import platform; print(platform.python_version())"],
                             capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    return ".".join(version.split(".")[:2])


def seed(out: Path, folder: Path) -> int:
    """Copy the recordings in ``folder`` of examples that still exist into ``out``, where none is yet: ``record
    --resume`` keeps each one whose example is as it was recorded. How many were copied."""
    copied = 0
    for file in sorted(folder.rglob("*.json")) if folder.is_dir() else []:
        relative = file.relative_to(folder)
        if relative.name == "environment.json" or not (ROOT / "examples" / relative.with_suffix(".py")).is_file():
            continue
        target = out / relative
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, target)
            copied += 1
    return copied


def engine_source(work: Path) -> Path:
    """A copy of what the engine's package is built from (pyproject.toml, LICENSE, src/), in the release's own
    folder under ``work``: pip builds a package in its source folder (its build/), where recorders of other
    releases, running at the same time, would build theirs."""
    copy = work / "engine"
    shutil.rmtree(copy, ignore_errors=True)
    copy.mkdir(parents=True)
    for name in ("pyproject.toml", "LICENSE"):
        shutil.copy2(ROOT / name, copy / name)
    shutil.copytree(ROOT / "src", copy / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return copy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release", help="a torch release as PyPI names it, e.g. 2.4.1")
    parser.add_argument("--python", default=sys.executable, help="the Python of the virtualenv (default: this one)")
    parser.add_argument("--keep-venv", action="store_true", help="do not delete the virtualenv at the end")
    parser.add_argument("--recordings", type=Path, default=ROOT / "recordings", help="default: recordings/")
    parser.add_argument("--all", action="store_true",
                        help="record every example, not only those new or changed since the release's recordings")
    args = parser.parse_args(argv)
    if not re.fullmatch(r"\d+\.\d+\.\d+", args.release):
        parser.error(f"name a release as PyPI does, e.g. 2.4.1, not {args.release!r}")
    work = ROOT / ".cache" / "releases" / args.release
    venv, out, log = work / "venv", work / "out", work / "log"
    work.mkdir(parents=True, exist_ok=True)
    python = venv / "bin" / "python"
    ready = venv / ".installed"
    # an empty PIP_CONSTRAINT is ignored by pip, which then reads the one of its configuration files:
    # an empty file in its place replaces it
    env = {**os.environ, "PIP_CONSTRAINT": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    timings = {}

    start = time.monotonic()
    if not ready.is_file():
        shutil.rmtree(venv, ignore_errors=True)
        run([args.python, "-m", "venv", str(venv)], log)
        wanted = [f"torch=={args.release}", *pins(ROOT / "requirements.txt")]
        installed = run([str(python), "-m", "pip", "install", "--no-cache-dir", "--quiet", *wanted], log, env=env)
        if installed.returncode != 0:
            reasons = [line for line in installed.stdout.splitlines() if line.startswith("ERROR")]
            if any("No matching distribution" in line or "Could not find a version" in line for line in reasons):
                version = subprocess.run([str(python), "-c", "import platform; print(platform.python_version())"],
                                         capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
                shutil.rmtree(venv, ignore_errors=True)
                return not_installable(args.release, version, " ".join(reasons), args.recordings)
            print(f"error: installing torch {args.release} failed (see {log}); run again to retry", file=sys.stderr)
            return 2
        vision = run([str(python), "-m", "pip", "install", "--no-cache-dir", "--quiet", f"torch=={args.release}",
                      torchvision(args.release)], log, env=env)  # fmt: skip
        if vision.returncode != 0:  # its cells (requires-torchvision) are then skipped, as on the build
            print(f"warning: no torchvision for torch {args.release} (see {log}); recording without it")
        for pin in pins(ROOT / "requirements.txt", OPTIONAL):
            extra = run([str(python), "-m", "pip", "install", "--no-cache-dir", "--quiet", f"torch=={args.release}",
                         pin], log, env=env)  # fmt: skip
            if extra.returncode != 0:  # its cells (requires-<name>) are then skipped
                print(f"warning: {pin} does not install beside torch {args.release} (see {log}); recording without it")
        engine = run([str(python), "-m", "pip", "install", "--no-cache-dir", "--quiet", "--no-deps",
                      str(engine_source(work))], log, env=env)  # fmt: skip
        if engine.returncode != 0:
            print(f"error: installing the engine failed (see {log})", file=sys.stderr)
            return 2
        ready.touch()
    timings["install"] = time.monotonic() - start

    if not args.all:
        kept = seed(out, args.recordings / f"cpu-torch{args.release}-py{minor(python)}")
        print(f"{kept} recordings of torch {args.release} copied into {out}: their examples run again only if changed")
    start = time.monotonic()
    recorded = run([str(python), "-m", "mkdocs_examples", "record", "--device", "cpu", "--keep-failed", "--resume",
                    "--out", str(out)], log, cwd=ROOT)  # fmt: skip
    timings["record"] = time.monotonic() - start
    if recorded.returncode == 2:  # the engine stopped (1: examples failed, kept as findings or left unrecorded)
        print(f"error: recording under torch {args.release} stopped (see {log}); the virtualenv is kept: run "
              "again to retry", file=sys.stderr)
        return 2
    if not any(out.rglob("*.json")):
        print(f"error: nothing was recorded under torch {args.release} (see {log})", file=sys.stderr)
        return 2
    # an example that failed otherwise than a check (a crash, a time-out) has no recording: the page says so
    merged = run([sys.executable, "-m", "mkdocs_examples", "merge", str(out), "--device", "cpu", "--allow-missing",
                  "--into", str(args.recordings)], log, cwd=ROOT)  # fmt: skip
    if merged.returncode != 0:
        return 2
    if not args.keep_venv:
        shutil.rmtree(venv, ignore_errors=True)
    seconds = ", ".join(f"{k} {v:.0f} s" for k, v in timings.items())
    print(f"torch {args.release}: {seconds} (exit {recorded.returncode} of record; {log})")
    (work / "timings.json").write_text(json.dumps(timings) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
