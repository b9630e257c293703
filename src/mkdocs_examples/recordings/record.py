"""``record``, ``merge`` and ``shards``: make recordings on a GPU machine, for a build without one to publish.

    python -m mkdocs_examples shards                       # the GPU workflow's job matrix
    python -m mkdocs_examples record --shard 2/3 --out o2  # run shard 2 of 3 here, write its recordings
    python -m mkdocs_examples record --device cpu --shard 2/3 --out c2  # the same on this machine's CPU
    python -m mkdocs_examples merge o1 o2 o3 --into recordings  # → recordings/cuda-torch2.11.0-py3.12/
    python -m mkdocs_examples versions                     # the version matrix's jobs (recordings/matrix.py)
    python -m mkdocs_examples record --matrix versions --shard 1/2 --keep-failed --out c1  # one of them
    python -m mkdocs_examples migrate                      # recordings of schema 1 keyed per cell (migrate.py)
    python -m mkdocs_examples sign recordings/cuda-torch2.11.0-py3.12 --key FILE  # attest them (signing.py)

Recordings are made on the machine's own device and say so: a run on a CPU records
``"device": "cpu"``, and ``merge`` refuses it for a CUDA folder. Each folder holds one
environment (device, torch release, Python) and its manifest, ``environment.json``
(recordings/store.py); ``--into`` picks the folder from the recordings themselves.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

from mkdocs_examples.environment import DEVICES
from mkdocs_examples.execute.engine import Engine, EngineError, Outcome, Progress, describe, summary
from mkdocs_examples.recordings import matrix, migrate, shards, signing
from mkdocs_examples.recordings import store as recordings
from mkdocs_examples.recordings.store import Recording, RecordingError
from mkdocs_examples.settings import Site, load_site
from mkdocs_examples.source.cells import Example, ExampleError, find_examples


def add_commands(commands: argparse._SubParsersAction) -> None:
    config = {"type": Path, "default": Path("mkdocs.yml"), "help": "default: mkdocs.yml"}
    rec = commands.add_parser("record", help="run examples on this machine's device and write their recordings")
    rec.add_argument("paths", nargs="*", type=Path, help="example files or folders (default: all examples)")
    rec.add_argument("--out", type=Path, required=True, help="folder for <path>.json (a shard's, or recordings/cuda)")
    rec.add_argument("--shard", help="K/N: this shard of N, balanced by recorded durations; or a pinned runner label")
    rec.add_argument("--jobs", type=int, help="examples at once (default: the plugin's `jobs`)")
    rec.add_argument("--device", choices=DEVICES, help="cpu: run on the CPU although a GPU is here (it is hidden "
                     "from the examples), so that both devices are recorded with one torch; default: the plugin's")
    rec.add_argument("--keep-failed", action="store_true",
                     help="also keep the recording of an example whose check fails here (a claim that does not hold "
                     "on this torch): pages note it; for environments other than the build's")  # fmt: skip
    rec.add_argument("--matrix", choices=("gpu", "versions"), default="gpu",
                     help="whose plan --shard K/N follows: gpu (the `record` options: pins, CUDA durations; the "
                     "default) or versions (the version matrix: no pins, CPU durations)")  # fmt: skip
    rec.add_argument("--resume", action="store_true",
                     help="keep the recordings already in --out that this environment made of the examples as they "
                     "are, and record only the others (each recording is written as soon as its example ends)")
    rec.add_argument("-f", "--config-file", **config)
    merge = commands.add_parser("merge", help="combine shards' recordings; fail on a gap or a duplicate")
    merge.add_argument("shards", nargs="+", type=Path, help="the folders `record --out` wrote")
    where = merge.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", type=Path, help="the folder to write, named after the recordings' environment")
    where.add_argument("--into", type=Path, help="the site's recordings (e.g. recordings): writes the folder of "
                       "the recordings' environment there, e.g. recordings/cuda-torch2.11.0-py3.12")  # fmt: skip
    merge.add_argument("--device", default="cuda", choices=DEVICES,
                       help="the device every recording must come from (default: cuda)")
    merge.add_argument("--allow-missing", action="store_true",
                       help="write even if examples have no recording (their pages say so); for a GPU machine "
                       "whose torch cannot run every example")  # fmt: skip
    merge.add_argument("-f", "--config-file", **config)
    plan = commands.add_parser("shards", help="print the GPU job matrix as JSON (shard and runner label per job)")
    plan.add_argument("--device", default="cuda", choices=DEVICES, help="whose recorded durations balance the shards")
    plan.add_argument("--list", action="store_true", help="also list each shard's examples and seconds")
    plan.add_argument("-f", "--config-file", **config)
    versions = commands.add_parser("versions", help="print the version matrix as JSON (torch release, Python and "
                                   "shard per job), from the `versions` options")  # fmt: skip
    versions.add_argument("-f", "--config-file", **config)
    move = commands.add_parser("migrate", help="key recordings of schema 1 (the whole file's sha256) per cell, from "
                               "the sources they ran in git history; lists the cells that no longer hold")  # fmt: skip
    move.add_argument("recordings", nargs="?", type=Path, help="default: the plugin's `recordings` folder")
    move.add_argument("-f", "--config-file", **config)
    signing.add_commands(commands)


def main(args: argparse.Namespace) -> int:
    try:
        if args.command in ("keygen", "sign"):
            return signing.main(args)
        site = load_site(args.config_file)
        if args.command == "record":
            return _record(site, args.paths, args.out, args.shard, args.jobs or 0, device=args.device,
                           keep_failed=args.keep_failed, plan=args.matrix, resume=args.resume)  # fmt: skip
        if args.command == "merge":
            return _merge(site, args.shards, args.out or args.into, args.device,
                          allow_missing=args.allow_missing, into=args.into is not None)  # fmt: skip
        if args.command == "migrate":
            return migrate.migrate(site, args.recordings or site.root / site.config.recordings)
        if args.command == "versions":
            print(json.dumps({"include": matrix.jobs(site.config.versions)}))
            return 0
        return _shards(site, args.device, show=args.list)
    except (OSError, ValueError, RecordingError, EngineError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def durations(site: Site, device: str) -> dict[str, float]:
    """Seconds each example took when it was last recorded on ``device``, in any environment's folder
    (unreadable files: unknown)."""
    root = site.root / site.config.recordings
    found = {}
    for name in recordings.environment_folders(root):
        folder = root / name
        try:
            if recordings.read_manifest(folder)["device"] != device:
                continue
        except RecordingError:
            continue
        for file in recordings.recording_files(folder):
            try:
                recording = recordings.read(file, folder)
            except RecordingError:
                continue
            found[recording.example] = recording.seconds
    return found


def _record(
    site: Site, paths: list[Path], out: Path, shard: str | None, jobs: int,
    *, device: str | None = None, keep_failed: bool = False, plan: str = "gpu", resume: bool = False,
) -> int:  # fmt: skip
    chosen = find_examples(site.examples_dir, paths)
    if shard and plan == "versions":
        # the version matrix's CPU runners record every example, the GPU jobs' pinned ones too
        chosen = shards.select(shard, chosen, durations(site, "cpu"), {})
    elif shard:
        # planned as the `shards` command plans the workflow's jobs, whichever device this run records on,
        # so that a job records the same examples on its GPU and on its CPU
        planned = "cuda" if site.config.device == "auto" else site.config.device
        chosen = shards.select(shard, chosen, durations(site, planned), dict(site.config.record.pins))
    if device == "cpu":
        # the CPU of a GPU machine: its examples see no GPU, as on a machine without one
        os.environ["CUDA_VISIBLE_DEVICES"] = ""
    config = replace(site.config, device=device) if device else site.config
    engine = Engine.from_config(config, site.root, cache=False, jobs=jobs, watch=site.watch)
    device = engine.options.device
    if out.name in DEVICES and out.name != device:
        engine.close()
        raise ValueError(f"this machine records on {device}: its recordings cannot go into {out}")
    print(f"recording {len(chosen)} examples on {device}" + (f" (shard {shard})" if shard else ""))
    examples: list[Example] = []
    problems: list[str] = []
    for path in chosen:
        try:
            examples.append(engine.load(path))
        except ExampleError as error:
            problems.append(str(error))
    try:
        env = recordings.environment(device)
    except RecordingError:
        engine.close()
        raise
    here = recordings.environment_id({"device": device, **env})
    if _names_environment(out.name) and out.name != here:
        engine.close()
        raise ValueError(f"this machine records the environment {here}: its recordings cannot go into {out}")

    done = _resumable(out, here, examples) if resume else {}
    if done:
        print(f"resuming: {len(done)} examples already recorded in {out}")
    todo = [e for e in examples if e.path not in done]

    def keeps(outcome: Outcome) -> bool:
        return outcome.failure is None or (keep_failed and recordings.keepable(outcome.result))

    made = list(done.values())

    def report(outcome: Outcome, progress: Progress) -> None:
        status = "FAILED" if outcome.failure else "ok"
        print(f"{status:7} {outcome.result.seconds:7.2f}s  {outcome.example.path}", flush=True)
        if keeps(outcome):  # written at once: an interrupted run resumes from here (--resume)
            made.append(Recording.of(outcome.example, outcome.result, env))
            recordings.write_folder(out, made[-1:])

    start = time.perf_counter()
    try:
        outcomes = list(engine.run(todo, report, claims=False).values())  # the run as it was: a fact of its release
    finally:
        engine.close()
    if made:
        recordings.write_folder(out, [], manifest=recordings.manifest_of(made))
    for o in outcomes:
        if o.failure and keeps(o):
            print(f"kept, its check fails here: {o.example.path} ({o.failure.kind} in cell {o.failure.cell})")
    problems += [describe(o) for o in outcomes if o.failure and not keeps(o)]
    for problem in problems:
        print(f"\n{problem}", file=sys.stderr)
    print(summary(outcomes, time.perf_counter() - start))
    print(f"{len(made)} recordings in {out}: " + ", ".join(f"{k} {v}" for k, v in sorted(env.items())))
    return 1 if problems else 0


def _resumable(out: Path, here: str, examples: list[Example]) -> dict[str, Recording]:
    """The recordings in ``out`` that this environment (``here``) made of ``examples`` as they are now."""
    current = {e.path: e for e in examples}
    kept = {}
    for file in recordings.recording_files(out):
        try:
            recording = recordings.read(file, out)
        except RecordingError:
            continue  # cut short, say: recorded again
        example = current.get(recording.example)
        if example and recordings.environment_id(recording.env) == here and recording.whole(example):
            kept[example.path] = recording
    return kept


def _names_environment(name: str) -> bool:
    """Whether a folder's name has the form of an environment's (``cpu-torch2.14.1-py3.11``)."""
    return name.startswith(tuple(f"{d}-torch" for d in DEVICES))


def _merge(
    site: Site, folders: list[Path], out: Path, device: str, *, allow_missing: bool = False, into: bool = False
) -> int:
    found: dict[str, tuple[Recording, Path]] = {}
    problems = []
    for folder in folders:
        if not folder.is_dir():
            raise ValueError(f"no such folder: {folder}")
        for path, recording in recordings.read_folder(folder).items():
            if path in found:
                problems.append(f"{path} is recorded twice: in {found[path][1]} and in {folder}")
            elif recording.device != device:
                problems.append(f"{path} in {folder} was recorded on {recording.device}, not {device}")
            found.setdefault(path, (recording, folder))
    expected = set(find_examples(site.examples_dir, []))
    missing = [f"{path} has no recording in any shard" for path in sorted(expected - set(found))]
    if allow_missing:
        print("\n".join(f"warning: {line}" for line in missing), file=sys.stderr)
    else:
        problems += missing
    problems += [f"{path} is recorded but is not an example of this site" for path in sorted(set(found) - expected)]
    manifest = None
    if found and not problems:
        try:
            manifest = recordings.manifest_of([recording for recording, _ in found.values()])
        except RecordingError as error:
            problems.append(str(error))
    if into and not problems and not manifest:
        problems.append(f"no recordings to merge: --into {out} needs them to name the folder")
    if manifest and into:
        out = out / manifest["id"]
    elif manifest and out.name not in DEVICES and out.name != manifest["id"]:
        problems.append(f"these are recordings of the environment {manifest['id']}: they go into a folder of that "
                        f"name, not {out.name} (or use --into {out.parent})")  # fmt: skip
    if problems:
        print("\n".join(["merge refused; nothing was written:", *problems]), file=sys.stderr)
        return 1
    # A recording that says what the committed one says keeps the committed file (its date and
    # durations too): the pull request that refreshes recordings then shows only outputs that changed
    try:
        committed = recordings.read_folder(out)
    except RecordingError:
        committed = {}
    merged = [_unchanged(committed.get(path), recording) for path, (recording, _) in found.items()]
    # the older layout (a folder named after its device) has no manifest
    recordings.write_folder(out, merged, replace=True, manifest=None if out.name in DEVICES else manifest)
    changed = sum(
        1 for path, (recording, _) in found.items() if _unchanged(committed.get(path), recording) is recording
    )
    print(f"{len(found)} recordings from {len(folders)} shards in {out}: {changed} new or changed")
    return 0


def _unchanged(old: Recording | None, new: Recording) -> Recording:
    """``old`` where it records the same source, machine and outputs as ``new``; else ``new``."""

    def essence(r: Recording) -> tuple:
        return r.keys, r.lines, r.env, r.failed, tuple(replace(cell, seconds=0.0) for cell in r.cells)

    return old if old is not None and essence(old) == essence(new) else new


def _shards(site: Site, device: str, *, show: bool) -> int:
    """One job per shard: ``{"include": [{"shard": "1/2", "runner": "gpu"}, …]}``, for a workflow matrix."""
    options = site.config.record
    seconds = durations(site, device)
    planned = shards.plan(find_examples(site.examples_dir, []), seconds, options.shards, dict(options.pins))
    jobs = [{"shard": name, "runner": options.runner if "/" in name else name} for name in planned]
    print(json.dumps({"include": jobs}))
    if show:
        default = shards.DEFAULT if not seconds else None
        for name, paths in planned.items():
            total = sum(seconds.get(p, default or 0.0) for p in paths)
            print(f"{name}: {len(paths)} examples, {total:.1f} s recorded: {' '.join(paths)}", file=sys.stderr)
    return 0
