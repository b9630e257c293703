"""Run one example, cell by cell, inside a freshly forked worker process.

Everything here happens in the child that :mod:`mkdocs_examples.execute.child.worker` forks for the
example, so it may change global state freely: nothing reaches the next example.
Progress is appended to a JSON-lines *record* file, one line per event, so that the
parent can tell how far an example got even when it crashes or is killed.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import faulthandler
import hashlib
import importlib
import importlib.abc
import importlib.util
import io
import json
import linecache
import os
import platform
import random
import sys
import tempfile
import time
import traceback
import types
import warnings
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any, NoReturn

from mkdocs_examples.environment import distributions, package_version
from mkdocs_examples.execute.child.budget import Budget
from mkdocs_examples.execute.child.clean import Cleaner
from mkdocs_examples.results import IMAGE, MAX_IMAGE_BYTES, CellResult, Failure, FailureKind, Options
from mkdocs_examples.schema import JSONError, validate
from mkdocs_examples.source.cells import Cell, Example

# Python's own warning filters, read when the worker imports this module and before it
# preloads torch or numpy, so that an example warns exactly as `python example.py` would
_PYTHON_FILTERS = list(warnings.filters)
REAL_EXIT = os._exit  # the worker ends its children with this; examples get a patched os._exit


def run_example(
    example: Example, record: int, faults: int, options: Options, timeout: float,
    clock: tuple[float, float, float] | None = None,
) -> None:  # fmt: skip
    """Run every cell of ``example``; append events to the file open at descriptor ``record``.

    ``faults`` is the descriptor faulthandler writes a stack to at a crash or a timeout. ``clock``:
    when the worker began to start it, when its process was forked and when it was confined
    (``time.monotonic()``), said in the record's ``phases``, with the seconds spent around its cells.
    """
    # What this function calls once the example's code has run is bound here, before: an example
    # can patch any module (this one, json, builtins), but not the locals of a running frame.
    # The parent checks the record against the example anyway (execute/verdict.py)
    run_cell, dumps, as_dict, write, chdir, expected = _run_cell, json.dumps, asdict, os.write, os.chdir, _expected
    spend = Budget(options).spend  # what its cells show in all (the parent counts again)
    environment, depends, end_processes = _environment, _depends, _end_processes
    gettempdir, mkdtemp = tempfile.gettempdir, tempfile.mkdtemp
    monotonic, began, times = time.monotonic, time.monotonic(), os.times
    in_cells = 0.0
    faulthandler.enable(file=faults)  # a segfault or abort leaves the Python stack here
    faulthandler.dump_traceback_later(timeout, file=faults)  # so does a timeout

    def emit(event: str, **data: Any) -> None:
        line = memoryview((dumps({"event": event, **data}) + "\n").encode())
        while line:
            line = line[write(record, line) :]

    # the modules its cells need (requires-<module>), as installed: installing one runs the example again
    needed = {f"dist:{c.module}": package_version(c.module) for c in example.cells if c.module}
    module, imports = _prepare(example, options, faults)
    emit("env", env=environment(options))
    # In its TMPDIR, in the folder the engine removes with everything in it once the example has ended
    # (execute/child/scratch.py): a cleanup here would run what the example left through shutil.rmtree
    scratch = mkdtemp(prefix="example-")
    workdir = Path(scratch, "cwd")
    workdir.mkdir()
    chdir(workdir)  # files an example writes land in an empty folder of its own
    root = example.file.parents[example.path.count("/")]
    clean = Cleaner(root, workdir, Path(gettempdir()), options.max_output, own=dict(os.environ))
    capture = _Capture(Path(scratch, "output"))
    for cell in example.cells:
        emit("start", cell=cell.index)
        result, failure = run_cell(cell, example, module.__dict__, capture, options, clean)
        emit("cell", **as_dict(result))
        in_cells += result.seconds
        if failure is not None and expected(cell, failure):
            emit("declared", **as_dict(failure))  # its holds= says it fails on this torch: the run goes on
            failure = None
        failure = failure or spend(result, cell.lineno)
        if failure:
            emit("failure", **as_dict(failure))
            break
    chdir("/")
    end_processes()
    emit("env", env=environment(options))  # again: the example may have imported torch itself
    emit("depends", depends={**needed, **depends(root, imports.seen)})
    if clock:
        started, forked, confined = clock
        emit("phases", started=started, fork=forked - started, sandbox=confined - forked,
             runner=monotonic() - began - in_cells, cpu=sum(times()[:4]), ended=monotonic())  # fmt: skip
    emit("end")


def _expected(cell: Cell, failure: Failure) -> bool:
    """Whether ``failure`` is one ``cell``'s declaration expects: a failed check (an exception, or no exception
    where the cell must raise) on a torch release outside its ``holds=`` range (source/holds.py)."""
    torch = sys.modules.get("torch")
    version = getattr(torch, "__version__", None) if torch is not None else None
    return (cell.holds is not None and failure.kind in ("exception", "no-exception") and isinstance(version, str)
            and not cell.holds.covers(version))  # fmt: skip


def _end_processes() -> None:
    """End the processes multiprocessing and inductor started, as `python example.py` does when it exits.

    The child leaves by os._exit (no interpreter shutdown: it would cost torch's teardown), which
    skips this: a DataLoader's workers would otherwise outlive the example for seconds, and count
    as processes it left behind.
    """
    util = sys.modules.get("multiprocessing.util")
    if util is not None:
        util._exit_function()
    # inductor's pool of compile workers (torch 2.4-2.7 start one), which an exit handler of torch's ends
    shutdown = getattr(sys.modules.get("torch._inductor.async_compile"), "shutdown_compile_workers", None)
    if callable(shutdown):
        with contextlib.suppress(Exception):
            shutdown()


def _prepare(example: Example, options: Options, faults: int) -> tuple[types.ModuleType, _Imports]:
    """Give the example the process state ``python examples/<path>`` would give it; its module, and
    what records the modules it imports."""
    sys.argv = [str(example.file)]
    sys.path[0] = str(example.file.parent)
    # A real __main__ module, so pickle finds the example's classes and functions (torch.save,
    # spawn and forkserver workers) as it would under `python examples/<path>`
    module = types.ModuleType("__main__")
    module.__file__ = str(example.file)
    sys.modules["__main__"] = module
    source_lines = example.source.splitlines(keepends=True)
    linecache.cache[example.display] = (len(example.source), None, source_lines, example.display)
    # resetwarnings() tells the warnings machinery that its filters changed (which forgets what the
    # worker's imports already warned); then Python's own filters come back, as `python` starts with
    warnings.resetwarnings()
    warnings.filters[:] = _PYTHON_FILTERS  # type: ignore[index]
    warnings.showwarning = _show_warning
    owner = os.getpid()

    def _exit(status: int) -> NoReturn:  # leave the stack behind, so the failure can name the line
        if os.getpid() == owner:  # not in processes the example forks (multiprocessing ends those so)
            faulthandler.dump_traceback(file=faults)
        REAL_EXIT(status)

    os._exit = _exit
    random.seed(options.seed)
    return module, _Imports.install(options)


class _Imports(importlib.abc.MetaPathFinder):
    """The modules the example imports, as it imports them; numpy and torch seeded (and torch's
    threads set) as they are imported, or at once where the worker preloaded them.

    Without the seeding, an example that imports torch itself, on a site that does not preload
    it, would print other random numbers on every build. Recording imports here, rather than
    going through ``sys.modules`` at the end, leaves the worker's thousands of modules untouched:
    a forked child that walks them copies most of the worker's memory pages (about 5 ms).
    """

    def __init__(self, options: Options, names: set[str]) -> None:
        self.options, self.names = options, names
        self.seen: list[str] = []  # every module looked for that was not imported yet

    @classmethod
    def install(cls, options: Options) -> _Imports:
        for name in ("numpy", "torch"):
            if name in sys.modules:
                _seed(sys.modules[name], options)
        finder = cls(options, {name for name in ("numpy", "torch") if name not in sys.modules})
        sys.meta_path.insert(0, finder)
        return finder

    def find_spec(self, name, path, target=None):
        self.seen.append(name)
        if name not in self.names:
            return None
        self.names.discard(name)  # the finders after this one find it
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        exec_module, options = spec.loader.exec_module, self.options

        def seeded(module: types.ModuleType) -> None:
            exec_module(module)
            _seed(module, options)

        spec.loader.exec_module = seeded  # type: ignore[method-assign]
        return spec


def _seed(module: types.ModuleType, options: Options) -> None:
    if module.__name__ == "numpy":
        module.random.seed(options.seed)
    elif module.__name__ == "torch":
        module.manual_seed(options.seed)
        module.set_num_threads(options.threads)


def _environment(options: Options) -> dict[str, str]:
    # The packages behind this line are also in the cache key, and in each result's `depends`
    env = {"python": platform.python_version(), "device": options.device}
    if "torch" in sys.modules:
        env["torch"] = sys.modules["torch"].__version__
    return env


def _run_cell(
    cell: Cell, example: Example, namespace: dict, capture: _Capture, options: Options, clean: Cleaner,
    *, _compile: Any = compile, _exec: Any = exec,  # bound when this module is imported, before any example
) -> tuple[CellResult, Failure | None]:
    if cell.has("requires-cuda") and options.device != "cuda":
        return CellResult(cell.index, skipped="requires-cuda"), None
    if cell.module is not None and not _imports(cell.module):
        return CellResult(cell.index, skipped=f"requires-{cell.module}"), None
    failure, shown = None, None
    start = time.perf_counter()
    with capture:
        try:
            code = _compile("\n" * (cell.lineno - 1) + cell.source, example.display, "exec")
            _exec(code, namespace)
        except BaseException as exc:
            text, line = _format_traceback(exc, example.display)
            text, cut = clean(text)
            if cut:
                text += f"\n[… {cut} more characters]"
            if cell.has("raises-exception") and not isinstance(exc, (SystemExit, KeyboardInterrupt)):
                shown = text
            else:
                kind: FailureKind = "exit" if isinstance(exc, SystemExit) else "exception"
                failure = Failure(kind, cell.index, line or cell.lineno, text)
        else:
            if cell.has("raises-exception"):
                failure = Failure("no-exception", cell.index, cell.lineno)
    seconds = round(time.perf_counter() - start, 4)
    output, truncated = clean(capture.text)
    truncated += capture.unread
    images, refused = _showable(_figures(options.max_figures))
    if refused and failure is None:
        failure = Failure("figure", cell.index, cell.lineno, detail=refused)
    return CellResult(cell.index, output, truncated, images, shown, None, seconds), failure


def _showable(images: list[str]) -> tuple[tuple[str, ...], str | None]:
    """The figures a page can embed (the one check of every image, ``$defs/image``); why the first other one cannot."""
    kept, refused = [], None
    for number, image in enumerate(images, 1):
        try:
            kept.append(validate(image, IMAGE))
        except JSONError as error:
            refused = refused or (
                f"figure {number} of this cell cannot be shown: {error.message}. A page embeds PNG figures of at most "
                f"{MAX_IMAGE_BYTES >> 20} MiB: draw it smaller (figsize, dpi), or close it with plt.close()"
            )
    return tuple(kept), refused


def _imports(name: str) -> bool:
    """Whether module ``name`` imports here (a torchvision built for another torch is installed, and does not)."""
    try:
        importlib.import_module(name)
    except Exception:  # ImportError, or the RuntimeError of a torchvision whose operators this torch lacks
        return False
    return True


def _format_traceback(exc: BaseException, display: str) -> tuple[str, int | None]:
    """The traceback with only the example's own frames; and the line it points at."""
    top = traceback.TracebackException.from_exception(exc)
    pending, seen = [top], set()
    while pending:
        te = pending.pop()
        if id(te) in seen:
            continue
        seen.add(id(te))
        te.stack = traceback.StackSummary.from_list([f for f in te.stack if f.filename == display])
        pending += [t for t in (te.__cause__, te.__context__) if t is not None]
    line = top.stack[-1].lineno if top.stack else getattr(exc, "lineno", None)
    return "".join(top.format()), line


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    # Library paths differ between machines: the cleaner keeps the part a reader recognises
    sys.stderr.write(f"{filename}:{lineno}: {category.__name__}: {message}\n")


def _depends(root: Path, names: Iterable[str]) -> dict[str, str]:
    """The distributions and example-folder modules of ``names`` (modules this process imported),
    with versions and digests, and those of what the worker preloaded (looked up once, in the
    worker: see :func:`preload_metadata`)."""
    preloaded, depends = _PRELOADED if _PRELOADED else (frozenset(), {})
    depends = dict(depends)
    folder = f"{root}{os.sep}"
    for name in dict.fromkeys(n for n in names if n in sys.modules and n not in preloaded):
        top = name.partition(".")[0]
        if top in sys.stdlib_module_names or top == "mkdocs_examples":  # the engine is in the cache key
            continue
        for distribution in distributions().get(top, ()):
            depends[f"dist:{distribution}"] = package_version(distribution)
        file = getattr(sys.modules.get(name), "__file__", None)
        if name not in ("__main__", "__mp_main__") and file and os.path.abspath(file).startswith(folder):
            path = Path(file).resolve().relative_to(root).as_posix()
            depends[f"file:{path}"] = hashlib.sha256(Path(file).read_bytes()).hexdigest()
    return depends


_PRELOADED: tuple[frozenset[str], dict[str, str]] | None = None


def preload_metadata() -> None:
    """In the worker, once: the package metadata, and the distributions the preloaded modules come from;
    and numpy's and torch's seeding done once, so that what it loads on first use is loaded here, not in
    every child (torch.manual_seed's first call costs about 2.5 ms)."""
    global _PRELOADED
    for name in ("numpy", "torch"):
        if name in sys.modules:
            _seed(sys.modules[name], Options())
    distributions()
    _PRELOADED = (frozenset(), {})
    _PRELOADED = (frozenset(sys.modules), _depends(Path("/nonexistent"), list(sys.modules)))


def _figures(most: int) -> list[str]:
    """Every open matplotlib figure as a base64 PNG, at most one more than ``most`` (0: every one),
    enough to show it was past the option; the figures are closed."""
    if "matplotlib.pyplot" not in sys.modules:
        return []
    plt = sys.modules["matplotlib.pyplot"]
    images = []
    for number in plt.get_fignums()[: most + 1 if most else None]:
        buffer = io.BytesIO()
        plt.figure(number).savefig(buffer, format="png", bbox_inches="tight")
        images.append(base64.b64encode(buffer.getvalue()).decode())
    plt.close("all")
    return images


class _Capture:
    """Send file descriptors 1 and 2 (Python, C and subprocess output alike) to one file.

    At most ``READ`` bytes of it are read back (a cell may print gigabytes); ``unread`` counts the rest.
    """

    _libc = ctypes.CDLL(None)
    READ = 16 << 20

    def __init__(self, path: Path) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC)
        self.text, self.unread = "", 0

    def __enter__(self) -> None:
        os.ftruncate(self.fd, 0)
        os.lseek(self.fd, 0, os.SEEK_SET)
        os.dup2(self.fd, 1)
        os.dup2(self.fd, 2)
        stream = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", write_through=True)
        sys.stdout = sys.stderr = stream

    def __exit__(self, *exc_info: object) -> None:
        with contextlib.suppress(OSError):  # at the file size limit, nothing more can be written
            sys.stdout.flush()
        self._libc.fflush(None)
        size = os.fstat(self.fd).st_size
        self.text = os.pread(self.fd, min(size, self.READ), 0).decode("utf-8", errors="replace")
        self.unread = max(0, size - self.READ)
