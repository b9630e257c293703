"""Run a set of examples through memory, cache and worker pool; the plugin and the CLI share it."""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from mkdocs_examples.environment import detect_device
from mkdocs_examples.execute import raises
from mkdocs_examples.execute.cache import PACKAGE, Cache, Lines, cache_key, entries, fingerprint, lines_of, relocated
from mkdocs_examples.execute.child import headers, sandbox
from mkdocs_examples.execute.child.budget import size
from mkdocs_examples.execute.pool import Pool, signal_name
from mkdocs_examples.results import MAX_RECORDING, Failure, Options, Result
from mkdocs_examples.settings import PROTECTIONS, Settings
from mkdocs_examples.source import files
from mkdocs_examples.source.cells import Example, read_example

# Examples that start processes or threads of their own get a core to themselves
_PARALLEL = re.compile(
    r"\b(subprocess|multiprocessing|threading|concurrent\.futures|os\.fork)\b|num_workers\s*=\s*[1-9]"
)


NOT_EXECUTED = (
    "no cached result for this example, and this build does not execute examples (execute: false): "
    "run them in the job that does, with the same versions, and pass its .cache/examples on to this one"
)


# What a failed hidden check (a `remove-cell` cell) means: never "tag it raises-exception", which would
# turn the failed claim into an output shown as intended
CLAIM_FAILED = "a claim of this page no longer holds: fix the code, the prose or the check"


class EngineError(Exception):
    """The engine cannot run examples as configured."""


@dataclass(frozen=True)
class Outcome:
    example: Example
    result: Result
    origin: str  # "run", "cache", "memory", or "none" (not cached, and the engine does not execute)

    @property
    def failure(self) -> Failure | None:
        return self.result.failure


@dataclass
class Progress:
    total: int
    done: int = 0
    cached: int = 0
    failed: int = 0

    def count(self, outcome: Outcome) -> None:
        self.done += 1
        self.cached += outcome.origin in ("cache", "memory")
        self.failed += outcome.failure is not None

    def __str__(self) -> str:
        return f"[{self.done}/{self.total}] {self.cached} cached, {self.failed} failed"


class Engine:
    def __init__(
        self,
        examples_dir: Path,
        cache_dir: Path | None,
        *,
        options: Options,
        preload: list[str],
        jobs: int = 0,
        timeout: float = 120,
        folder: str = "examples",
        watch: Iterable[Path] = (),
        execute: bool = True,
        required: frozenset[str] = frozenset(),
        headers: Path | None = None,
    ) -> None:
        self.examples_dir, self.folder = examples_dir, folder
        # protections every run must have (Settings.required_protections): a worker without one stops the run,
        # and a result remembered or cached without one is not used
        self.required = required
        self.execute = execute  # false: results come from memory or the cache only; no worker is started
        self.options, self.timeout = options, timeout
        self.jobs = jobs or os.cpu_count() or 1
        self.fill = not jobs  # one per core, and one more while one waits; a number of jobs is the most at once
        self.cache = Cache(cache_dir, examples_dir.resolve()) if cache_dir else None
        # What examples must not change: the folders a build reads or publishes, and the engine, are
        # compared before and after they run (where the OS allows, examples write only in their own folder)
        self.watch = sorted({p.resolve() for p in [*watch, examples_dir, *([cache_dir] if cache_dir else [])]})
        # What they may read of the project: the examples alone. Not the cache, the site, the recordings or the
        # pages: an example that could tell a pull request's build (no cache yet) from main's (a restored one)
        # could print something else once merged. Python's installation is readable wherever it is
        # ``headers``: where the worker keeps inductor's precompiled headers, built by itself (child/headers.py)
        self.pool = Pool(preload, [examples_dir.resolve()], headers)
        self._noted = False
        self.expected: dict[str, float] = {}  # seconds each example took when recorded: the longest run first
        self._fingerprint = fingerprint(options, preload)
        # key: the result and the lines it cites (execute/cache.py), for `serve` and language builds
        self._memory: dict[str, tuple[Result, Lines]] = {}
        self.executed: list[str] = []  # paths of the examples this engine has executed, in order

    @classmethod
    def from_config(
        cls,
        config: Settings,
        root: Path,
        *,
        cache: bool = True,
        jobs: int = 0,
        watch: Iterable[Path] = (),
        execute: bool = True,
    ) -> Engine:
        """The engine the plugin options describe; paths are relative to ``root``, the folder of mkdocs.yml.

        The one place where options become an engine: the plugin and the CLI both come here. The
        plugin passes its option ``execute``; the CLI's commands exist to run examples, and always do.
        """
        options = run_options(config)
        engine = cls(
            root / config.examples_dir,
            root / config.cache_dir if cache and config.cache else None,
            options=options,
            preload=list(config.preload),
            jobs=jobs or config.jobs,
            timeout=config.timeout,
            folder=config.folder,
            watch=watch,
            execute=execute,
            required=config.required_protections(),
            headers=headers.default_store(),
        )
        engine.expected = recorded_seconds(root / config.recordings)
        return engine

    def load(self, path: str, support: str | None = None) -> Example:
        """Example ``path`` (:func:`read_example`; ``support``: the digest of the folder's other files, if known)."""
        return read_example(self.examples_dir, path, self.folder, support)

    def start_early(self) -> None:
        """Start the worker now where every example will run: this engine executes, and no result is stored (no
        cache, or an empty one: a fresh clone, CI). It imports its modules while the build reads what it needs."""
        if self.execute and not self.executed and (self.cache is None or self.cache.empty()):
            self.pool.start()

    def run(
        self, examples: list[Example], on_outcome: Callable[[Outcome, Progress], None] | None = None,
        *, claims: bool = True,
    ) -> dict[str, Outcome]:
        """Results of ``examples`` by path: remembered, cached, or executed now in parallel. ``claims``: each
        judged by its cells' ``raises=`` claims too (:func:`judged`); a recording keeps the run as it was."""
        unique = {example.path: example for example in examples}
        progress = Progress(total=len(unique))
        outcomes: dict[str, Outcome] = {}
        keys = {path: cache_key(example, self._fingerprint) for path, example in unique.items()}

        def done(outcome: Outcome) -> None:
            outcome = judged(outcome) if claims else outcome
            outcomes[outcome.example.path] = outcome
            progress.count(outcome)
            if on_outcome:
                on_outcome(outcome, progress)

        pending = []
        for path, example in unique.items():
            if (kept := self._memory.get(keys[path])) is not None and self._trusted(kept[0]):
                done(Outcome(example, relocated(kept[0], example, kept[1]), "memory"))
            elif self.cache and (kept := self.cache.get(keys[path])) is not None and self._trusted(kept[0]):
                self._memory[keys[path]] = kept
                done(Outcome(example, relocated(kept[0], example, kept[1]), "cache"))
            elif (refused := self._too_large(example)) is not None:
                done(Outcome(example, refused, "run"))  # never run, never cached
            else:
                pending.append(example)
        if not pending:
            return outcomes
        if not self.execute:
            for example in pending:  # a failure, not remembered: a later build may find it cached
                done(Outcome(example, Result(failure=Failure("not-executed", detail=NOT_EXECUTED)), "none"))
            return outcomes
        self.pool.start()  # the worker imports its modules while the folders are read below
        self._check_device()
        self._check_protections()
        protections = self.protections()
        before = sandbox.snapshot(self.watch), sandbox.snapshot([PACKAGE])
        alone = {e.path for e in pending if _PARALLEL.search(e.source)}
        # The longest first, as recorded, so that none starts last and runs on alone (compile.py: 10 s of
        # the site's 22); then those that start processes; the rest as they came
        pending.sort(key=lambda e: (-self.expected.get(e.path, 0.0), e.path not in alone))
        ran = []
        for example, result in self.pool.run(pending, self.options, timeout=self.timeout, parallel=self.jobs,
                                             alone=alone, fill=self.fill):  # fmt: skip
            self.executed.append(example.path)
            result = replace(result, protections=protections)
            ran.append((example, result))
            if result.failure is not None:  # shown now; successes wait for the check below
                self._memory[keys[example.path]] = (result, {})
                done(Outcome(example, result, "run"))
        for example in pending:  # the pool yields every example once; if not, say so rather than lose it
            if example.path not in outcomes and all(e.path != example.path for e, _ in ran):
                detail = "the worker never reported this example's end (a bug of the engine: please report it)"
                done(Outcome(example, Result(failure=Failure("worker", detail=detail)), "run"))
        changed = sandbox.changes(before[0], sandbox.snapshot(self.watch))
        changed += [c for c in sandbox.changes(before[1], sandbox.snapshot([PACKAGE])) if c[0].endswith(".py")]
        for example, result in ran:
            if changed and (culprit := self._changed_by(example, changed)):
                result = replace(result, failure=Failure("sandbox", detail=culprit))
            elif result.failure is not None:
                continue
            lines = lines_of(example, result.cells)
            if result.failure is None and self.cache and not changed:
                self.cache.put(keys[example.path], result, lines)  # only what built correctly, untouched, is kept
            self._memory[keys[example.path]] = (result, lines)
            done(Outcome(example, result, "run"))
        return outcomes

    def _too_large(self, example: Example) -> Result | None:
        """A failure for an example larger than the option ``max_source`` allows; None if it is not."""
        size, limit = len(example.source.encode()), self.options.max_source
        if not limit or size <= limit:
            return None
        detail = (
            f"the example is {_size(size)}, more than the plugin option `max_source` allows ({_size(limit)}): "
            "it was not run. Make it smaller (data belongs in a file beside it, or generated), or raise the option"
        )
        return Result(failure=Failure("limit", detail=detail))

    def _changed_by(self, example: Example, changed: list[tuple[str, str, int]]) -> str | None:
        """What ``example`` changed in the project, judged by when it ran; None if nothing."""
        start, end = self.pool.spans.get(example.path, (0.0, 0.0))
        mine = [(path, how) for path, how, when in changed if how == "removed" or start - 1 <= when / 1e9 <= end + 1]
        if not mine:
            return None
        listed = ", ".join(f"{how} {os.path.relpath(path)}" for path, how in mine[:5])
        return (
            f"this example changed the project while it ran ({listed}): examples must not write into the "
            "docs, examples, site or cache folders, nor the engine; write into the current folder, a scratch "
            "folder of its own"
        )

    def cache_problem(self) -> str | None:
        """Why results are not being stored, in one line naming the folder; None when they are."""
        if self.cache and self.cache.unwritable:
            return f"results are not cached: cannot write to {self.cache.root} ({self.cache.unwritable})"
        return None

    def cache_usage(self) -> str | None:
        """What the cache holds, in one line naming the command that lists and prunes it; None without a cache."""
        if not self.cache:
            return None
        count, total = self.cache.usage()
        root = self.cache.root.absolute()
        shown = root.relative_to(Path.cwd()) if root.is_relative_to(Path.cwd()) else root
        return (f"example cache: {entries(count)}, {size(total)} in {shown} "
                "(`python -m mkdocs_examples cache list`, `cache prune`)")  # fmt: skip

    def sandbox_note(self) -> str | None:
        """What confines the examples on this system, in one line, once per engine; None before any ran."""
        if self._noted or not self.pool.sandbox:
            return None
        self._noted = True
        return sandbox_line(self.pool.sandbox)

    def _missing(self) -> dict[str, str]:
        """Each protection the worker lacks, and why (after it started): not the memory cgroup where no memory
        limit applies (``max_memory: 0``, or CUDA)."""
        missing = dict(self.pool.ready().get("missing") or {})
        if not sandbox.memory_limit(self.options):
            missing.pop("memory", None)
        return missing

    def protections(self) -> tuple[str, ...]:
        """The protections the worker enforces, by their names in ``sandbox_optional`` (after it started)."""
        missing = self._missing()
        return tuple(name for name in PROTECTIONS if name not in missing)

    def _trusted(self, result: Result) -> bool:
        """Whether ``result`` ran under every protection this engine requires."""
        return self.required <= set(result.protections)

    def _check_protections(self) -> None:
        """Stop here, before any example runs, where the worker lacks a protection this engine requires."""
        refused = {name: why for name, why in self._missing().items() if name in self.required}
        if refused:
            listed = "; ".join(f"`{name}`: {why}" for name, why in refused.items())
            raise EngineError(
                f"the sandbox is required here (CI, or the option `require_sandbox: always`) and this system refuses "
                f"{listed}. No example was run. Run where the kernel allows it (README of mkdocs_examples: \"Where it "
                f"runs\"), or accept it in mkdocs.yml under the examples plugin: `sandbox_optional: "
                f"[{', '.join(refused)}]`"
            )

    def forget_failures(self) -> None:
        """Let failed examples run again on the next build (they are never cached on disk)."""
        self._memory = {k: kept for k, kept in self._memory.items() if kept[0].failure is None}

    def close(self) -> None:
        self.pool.close()

    def _check_device(self) -> None:
        if self.options.device == "cuda" and not self.pool.ready().get("cuda"):
            raise EngineError("device is 'cuda' but torch sees no CUDA GPU here; set the plugin option device: cpu")


def run_options(config: Settings) -> Options:
    """The options every run of the site's examples gets, whoever runs them (the engine, a notebook's kernel)."""
    return Options(
        device=detect_device(config.device), seed=config.seed, threads=config.threads, max_output=config.max_output,
        max_source=config.max_source, max_memory=config.max_memory, max_file_size=config.max_file_size,
        max_files=config.max_files, max_folder_size=config.max_folder_size,
        max_output_bytes=config.max_output_bytes, max_figures=config.max_figures,
        max_figures_bytes=config.max_figures_bytes,
    )  # fmt: skip


def judged(outcome: Outcome) -> Outcome:
    """``outcome``, failed where a cell raised another exception than its ``raises=`` claim names. Judged on every
    build, after the cache: a claim is no part of a key, so a claim added or changed is checked on the result kept."""
    torch = outcome.result.env.get("torch", "")
    found = [m for m in raises.mismatches(outcome.example, outcome.result.cells)
             if m.cell.holds is None or m.cell.holds.covers(torch)]  # not one its holds= expects on this torch
    if outcome.failure is not None or not found:
        return outcome
    first = found[0]
    failure = Failure("raises", first.cell.index, first.cell.header or first.cell.lineno, detail=first.detail())
    return replace(outcome, result=replace(outcome.result, failure=failure))


def describe(outcome: Outcome) -> str:
    """One clear message for a failed example: file and line first, then what to do."""
    failure = outcome.failure
    assert failure is not None
    example = outcome.example
    where = f"{example.display}:{failure.line}" if failure.line else example.display
    kind = failure.kind
    cell = example.cells[failure.cell] if failure.cell is not None and failure.cell < len(example.cells) else None
    if kind == "exception" and cell is not None and cell.has("remove-cell"):  # a hidden check: a claim, not a demo
        text = CLAIM_FAILED
        if failure.line and 0 < failure.line <= len(lines := example.source.splitlines()):
            text += f"; the check: {lines[failure.line - 1].strip()}"
    elif kind == "exception":
        text = 'unexpected exception (if the cell should raise, tag it: # %% tags=["raises-exception"])'
    elif kind == "raises":
        text = failure.detail or kind
    elif kind == "no-exception":
        text = "the cell is tagged raises-exception but raised nothing"
    elif kind == "exit":
        text = "the example called sys.exit(); examples must run to their end"
    elif kind == "timeout":
        text = f"timed out after {failure.timeout:g} s (plugin option `timeout`); its stack at that moment"
    elif kind == "crash":
        text = f"the example's process crashed ({signal_name(-(failure.returncode or 0))})"
    elif kind in ("worker", "sandbox", "figure", "not-executed", "leftover", "limit"):
        text = failure.detail or kind
    elif kind == "record":
        text = (
            "the example's process ended normally, but the engine could not read what it recorded, or not "
            f"believe it ({failure.detail}); if the example writes into files or descriptors it did not create, "
            "or changes the engine's modules, stop it; otherwise this is a bug of the engine: please report it"
        )
    else:
        text = f"the example's process exited with code {failure.returncode} before its end (os._exit()?)"
    detail = failure.traceback
    return f"{where}: {text}" + (f"\n{detail.rstrip()}" if detail else "")


def recorded_seconds(recordings: Path) -> dict[str, float]:
    """Seconds each example took in one CPU recording of ``recordings`` (the first folder by name), to run
    the longest first. Read as plain JSON, not validated: it only orders the examples, whatever it says."""
    folders = sorted(f for f in recordings.glob("cpu-*/") if not f.is_symlink()) if recordings.is_dir() else []
    found: dict[str, float] = {}
    for file in folders[0].rglob("*.json") if folders else []:
        with contextlib.suppress(OSError, ValueError, AttributeError):  # a link too: the build refuses it later
            recording = json.loads(files.read_regular(file, MAX_RECORDING))
            if isinstance(recording.get("example"), str) and isinstance(recording.get("seconds"), (int, float)):
                found[recording["example"]] = float(recording["seconds"])
    return found


def sandbox_line(info: dict) -> str:
    """One line saying what confines examples here, from the worker's first answer (README: "Where it runs")."""
    abi = info.get("landlock") or 0
    if abi:
        scoped = "signals scoped" if abi >= 6 else "signals not scoped (Linux < 6.12)"
        files = f"files by Landlock ABI {abi} (read: examples, Python, compilers, system; write: own folder; {scoped})"
    else:
        files = "files NOT confined (no Landlock: writes into the project are detected afterwards)"
    network = info.get("network")
    net = "network: own loopback only" if network is None else f"network NOT isolated ({network})"
    missing = info.get("missing") or {}
    view = "namespaces NOT isolated" if "namespaces" in missing else "own root, /tmp, /dev, /proc, processes and IPC"
    limited = "process-limit" not in missing and "most" in info
    most = f"at most {info.get('most')} processes" if limited else "processes NOT limited"
    memory = "memory NOT limited by a cgroup" if "memory" in missing else "memory limited by a cgroup"
    found = f"processes found by {info.get('processes')}"
    line = f"examples run sandboxed: {view}; {files}; {net}; {most}; {memory}; {found}"
    line += "".join(f"\n  missing protection `{name}`: {why}" for name, why in missing.items())
    if missing:
        line += ("\n  examples ran without these here; where the sandbox is required (CI, or the option "
                 "`require_sandbox: always`), nothing runs without them")  # fmt: skip
    return line


def _size(size: int) -> str:
    return f"{size / (1 << 20):.1f} MiB" if size >= 1 << 20 else f"{size / 1024:.0f} KiB"


def summary(outcomes: list[Outcome], seconds: float) -> str:
    ran = [o for o in outcomes if o.origin == "run"]
    failed = sum(1 for o in outcomes if o.failure)
    cached = sum(1 for o in outcomes if o.origin in ("cache", "memory"))
    examples = f"{len(outcomes)} example" + ("" if len(outcomes) == 1 else "s")
    line = f"{examples} in {seconds:.1f} s: {len(ran)} run, {cached} cached, {failed} failed"
    slowest = sorted(ran, key=lambda o: o.result.seconds, reverse=True)[:3]
    if slowest:
        line += "; slowest: " + ", ".join(f"{o.example.path} {o.result.seconds:.2f} s" for o in slowest)
    return line


def grouped(problems: list[str]) -> list[str]:
    """One message per failed example, naming every block that embeds it (the first five), not one per block."""
    places: dict[str, list[str]] = {}
    for problem in problems:
        head, found, where = problem.rpartition("\n(embedded at ")
        key = head if found else problem
        places.setdefault(key, []).extend([where.removesuffix(")")] if found else [])
    messages = []
    for message, where_all in places.items():
        listed = ", ".join(where_all[:5]) + (f" and {len(where_all) - 5} more" if len(where_all) > 5 else "")
        messages.append(message + (f"\n(embedded at {listed})" if where_all else ""))
    return messages
