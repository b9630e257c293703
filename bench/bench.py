"""How close the engine comes to the fastest possible run of this site's examples.

    .venv/bin/python bench/bench.py [--runs 3] [--kernels 4]     (or: make bench)

Each run measures, side by side on the same machine at the same moment:

(a) engine   wall time of one cold run of every example of the site, as
             `python -m mkdocs_examples run --no-cache` does it: a fresh interpreter reads
             mkdocs.yml, starts the worker, which imports `preload`, and runs the examples;
(b) floor    what no engine can beat, measured as peers-bench measures it: the `preload`
             modules of mkdocs.yml imported in one process, plus the examples' own compute
             spread over the cores: max(longest example, total / cores). An example's compute
             is measured without the engine: its cells, timed inside a fork of the process that
             imported `preload`, with no sandbox and a cold inductor cache of its own
             (--floor-once), one at a time;
(c) ratio    engine / floor;
(d) kernels  a Jupyter kernel per example (jupytext + nbclient) for a few examples, the
             way a notebook-based tool runs them; the whole site is EXTRAPOLATED from
             their mean: mean * examples / cores (kernels in parallel, ideally packed).

Then, per example, the engine's seconds beside the floor's, and where the difference went
(Result.phases). See bench/README.md for how to read the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Kernels for a few examples only (each pays for a kernel and its own import of torch):
# ordinary ones from four sections, none that needs a GPU or starts worker processes
KERNEL_EXAMPLES = ["tensors/cat_and_stack.py", "autograd/graph.py", "modules/state_dict.py", "losses/mse.py"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--kernels", type=int, default=len(KERNEL_EXAMPLES), help="examples run in Jupyter kernels")
    parser.add_argument("-f", "--config-file", type=Path, default=ROOT / "mkdocs.yml")
    parser.add_argument("--engine-once", action="store_true", help=argparse.SUPPRESS)  # the timed child of (a)
    parser.add_argument("--floor-once", action="store_true", help=argparse.SUPPRESS)  # the examples of (b)
    args = parser.parse_args()
    if args.engine_once:
        return _engine_once(args.config_file)
    if args.floor_once:
        return _floor_once(args.config_file)

    config = _plugin_options(args.config_file)
    preload, examples_dir = list(config.preload), args.config_file.parent / config.examples_dir
    cores = os.cpu_count() or 1
    kernel_examples = KERNEL_EXAMPLES[: max(0, args.kernels)]
    print(f"machine: {cores} cores, Python {platform.python_version()}, {platform.machine()}")
    print(f"preload: {preload}")
    # Untimed, as peers-bench's warm-up: where the kernel pages out memory left idle (this machine's DAMON
    # does after a minute), the first process to import torch reads its libraries back from disk. That
    # would count against run 1's engine, measured first, and not against the floor measured after it
    subprocess.run([sys.executable, "-c", "; ".join(f"import {name}" for name in preload)], check=True)
    rows, engines, floors = [], [], []
    for run in range(1, args.runs + 1):
        engine_s, results = _time_engine(args.config_file)
        failed = [r["path"] for r in results if r["failed"]]
        if failed:
            print(f"run {run}: examples failed, figures not comparable: {', '.join(failed)}", file=sys.stderr)
            return 1
        import_s, floor_of = _time_floor(args.config_file)
        floor = {path: times["seconds"] for path, times in floor_of.items()}
        compute = list(floor.values())
        spread = max(max(compute), sum(compute) / cores)
        engine_of = {r["path"]: r for r in results}
        kernels = [_time_kernel(examples_dir / path) for path in kernel_examples]
        row = {
            "engine": engine_s,
            "import": import_s,
            "compute": sum(compute),
            "spread": spread,
            "floor": import_s + spread,
            "examples": len(results),
            "kernel_mean": statistics.mean(kernels) if kernels else float("nan"),
        }
        row["ratio"] = row["engine"] / row["floor"]
        row["kernels_site"] = row["kernel_mean"] * len(results) / cores
        rows.append(row)
        engines.append(engine_of)
        floors.append(floor_of)
        if run == 1:
            top = sorted(floor, key=floor.__getitem__, reverse=True)[:3]
            listed = ", ".join(f"{path} {floor[path]:.2f} s" for path in top)
            print(f"examples: {len(results)}; total compute (unsandboxed) {sum(compute):.2f} s; slowest: {listed}")
            if kernels:
                print(f"kernel examples: {', '.join(kernel_examples)}")
            print()
            print(_HEADER)
        print(_line(f"run {run}", row), flush=True)
    median = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
    print(_line("median", median))
    print()
    print(_split(engines, floors))
    # the example slowest by its median floor, the same in every run's figures
    slowest = max(floors[0], key=lambda path: statistics.median(run[path]["seconds"] for run in floors))
    engine = statistics.median(run[slowest]["seconds"] for run in engines)
    floor_s = statistics.median(run[slowest]["seconds"] for run in floors)
    print(f"\nits slowest example, {slowest}: engine {engine:.2f} s (fork to exit, sandboxed), floor {floor_s:.2f} s, "
          f"ratio {engine / floor_s:.2f} (medians)")  # fmt: skip
    return 0


def _split(engines: list[dict[str, dict]], floors: list[dict[str, dict[str, float]]]) -> str:
    """Per example, medians of the runs: the engine's seconds (fork to exit), the floor's, and where the
    difference went (pool.PHASES; `cells - floor`: the cells' own seconds in the sandbox, beyond the
    floor's); then CPU seconds, which a busy machine changes less than wall time."""
    from mkdocs_examples.execute.pool import PHASES

    phases = [name for name in PHASES if name not in ("wait", "cpu")]  # not part of an example's process
    columns = ["engine", "floor", "diff", "cells-floor", *phases, "wait", "cpu", "cpu floor"]
    lines = [f"{'per example, medians, s':40}" + "".join(f"{c:>12}" for c in columns)]
    sums = dict.fromkeys(columns, 0.0)
    median = statistics.median
    paths = sorted(floors[0], key=lambda p: -median(run[p]["seconds"] for run in engines))
    for path in paths:
        engine = median(run[path]["seconds"] for run in engines)
        floor = median(run[path]["seconds"] for run in floors)
        cells = median(run[path]["compute"] for run in engines)
        row = {"engine": engine, "floor": floor, "diff": engine - floor, "cells-floor": cells - floor}
        for name in [*phases, "wait", "cpu"]:
            row[name] = median(run[path]["phases"].get(name, 0.0) for run in engines)
        row["cpu floor"] = median(run[path]["cpu"] for run in floors)
        for name, value in row.items():
            sums[name] += value
        lines.append(f"{path:40}" + "".join(f"{row[c]:12.3f}" for c in columns))
    lines.append(f"{'sum':40}" + "".join(f"{sums[c]:12.2f}" for c in columns))
    lines += [f"  {name}: {what}" for name, what in PHASES.items()]
    return "\n".join(lines)


_HEADER = (
    f"{'':8} {'(a) engine':>11} {'(b) floor':>10} {'= import':>9} {'+ compute':>10} {'(c) ratio':>10}"
    f" {'(d) kernel':>11} {'kernels, site':>14}\n"
    f"{'':8} {'cold, s':>11} {'s':>10} {'s':>9} {'/cores, s':>10} {'a / b':>10}"
    f" {'per ex., s':>11} {'EXTRAPOL., s':>14}"
)


def _line(label: str, row: dict[str, float]) -> str:
    return (
        f"{label:8} {row['engine']:11.2f} {row['floor']:10.2f} {row['import']:9.2f} {row['spread']:10.2f}"
        f" {row['ratio']:10.2f} {row['kernel_mean']:11.2f} {row['kernels_site']:14.1f}"
    )


def _plugin_options(config_file: Path):
    from mkdocs_examples.settings import load_site

    return load_site(config_file).config


def _time_engine(config_file: Path) -> tuple[float, list[dict]]:
    """(a): wall time of a fresh interpreter running every example cold, and its results."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, __file__, "--engine-once", "-f", str(config_file)],
        capture_output=True, text=True, check=True, cwd=config_file.parent,
    )  # fmt: skip
    return time.perf_counter() - start, json.loads(done.stdout)


def _engine_once(config_file: Path) -> int:
    """In the child: what `python -m mkdocs_examples run --no-cache` does, reporting seconds as JSON."""
    from mkdocs_examples.execute.engine import Engine
    from mkdocs_examples.settings import load_site
    from mkdocs_examples.source.cells import find_examples

    site = load_site(config_file)  # the plugin's options alone, as the command line reads them
    engine = Engine.from_config(site.config, site.root, cache=False, watch=site.watch)
    engine.start_early()  # as the command does: the worker imports its modules while the examples are read
    try:
        examples = [engine.load(path) for path in find_examples(site.examples_dir, [])]
        outcomes = engine.run(examples)
    finally:
        engine.close()
    report = [
        {
            "path": path,
            "seconds": o.result.seconds,  # the example's process, fork to exit
            "compute": sum(cell.seconds for cell in o.result.cells),  # its cells alone
            "phases": o.result.phases,  # where the rest went (pool.PHASES)
            "failed": o.failure is not None,
        }
        for path, o in outcomes.items()
    ]
    print(json.dumps(report))
    return 0


def _time_floor(config_file: Path) -> tuple[float, dict[str, dict[str, float]]]:
    """(b): the preload's import, and each example's own compute, without the engine (--floor-once)."""
    done = subprocess.run(
        [sys.executable, __file__, "--floor-once", "-f", str(config_file)],
        capture_output=True, text=True, check=True, cwd=config_file.parent,
        env=dict(os.environ, OMP_NUM_THREADS="1"),  # as peers-bench runs its floor
    )  # fmt: skip
    found = json.loads(done.stdout)
    return found["import"], found["examples"]


def _floor_once(config_file: Path) -> int:
    """In the child: import `preload`, then run each example's cells in a fork, unsandboxed, and time them.

    The floor of the project's side-by-side benchmark of its peers (peers-bench), measured the same
    way. What the engine cannot avoid is kept: a fork of the preloaded process, the options' seed and
    threads, the cells but those that need a GPU, their figures rendered, a fresh folder and a cold
    inductor cache. What it adds is left out, and so is the fork itself: the sandbox, capturing,
    cleaning and recording the output, the pool. Inductor's precompiled headers stay where a user's
    own runs keep them (TMPDIR is left alone), as the engine keeps the ones its worker built."""
    import importlib

    from mkdocs_examples.settings import load_site
    from mkdocs_examples.source.cells import Example, find_examples

    site = load_site(config_file)
    start = time.perf_counter()
    for name in site.config.preload:
        importlib.import_module(name)
    preload = time.perf_counter() - start
    seconds = {}
    for path in find_examples(site.examples_dir, []):
        file = (site.examples_dir / path).resolve()
        example = Example.from_source(path, file, file.read_text())
        folder = Path(tempfile.mkdtemp(prefix="bench-floor-"))
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            _floor_child(example, folder, site.config, write)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            answer = json.loads(pipe.read() or b"{}")
        os.waitpid(pid, 0)
        shutil.rmtree(folder, ignore_errors=True)
        if "seconds" not in answer:
            print(f"{path}: failed without the engine\n{answer.get('error', 'no answer')}", file=sys.stderr)
            return 1
        seconds[path] = answer
    print(json.dumps({"import": preload, "examples": seconds}))
    return 0


def _floor_child(example, folder: Path, config, answer: int) -> None:
    """In the fork: the example's cells, as `__main__`, in ``folder``; its seconds (or its error) to ``answer``."""
    import io
    import random
    import traceback
    import types

    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(folder / "inductor")
    (folder / "cwd").mkdir()
    os.chdir(folder / "cwd")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    sys.path[0] = str(example.file.parent)
    random.seed(config.seed)
    if "torch" in sys.modules:
        sys.modules["torch"].manual_seed(config.seed)
        sys.modules["torch"].set_num_threads(config.threads)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(config.seed)
    module = types.ModuleType("__main__")
    module.__file__ = str(example.file)
    sys.modules["__main__"] = module
    cells = [(cell, compile("\n" * (cell.lineno - 1) + cell.source, str(example.file), "exec"))
             for cell in example.cells if not cell.has("requires-cuda")]  # fmt: skip
    report: dict = {}
    start = time.perf_counter()
    try:
        for cell, code in cells:
            try:
                exec(code, module.__dict__)
            except Exception:
                if not cell.has("raises-exception"):
                    raise
            if "matplotlib.pyplot" in sys.modules:  # its figures, rendered as the engine renders them
                plt = sys.modules["matplotlib.pyplot"]
                for number in plt.get_fignums():
                    plt.figure(number).savefig(io.BytesIO(), format="png", bbox_inches="tight")
                plt.close("all")
        report["seconds"] = time.perf_counter() - start
        report["cpu"] = sum(os.times()[:4])  # as the engine's runner counts it
    except BaseException:
        report["error"] = traceback.format_exc()
    os.write(answer, json.dumps(report).encode())
    os._exit(0)


def _time_kernel(example: Path) -> float:
    """(d): a fresh Jupyter kernel runs the example's notebook: start, every cell, shutdown."""
    import jupytext
    from nbclient import NotebookClient

    notebook = jupytext.read(example)
    notebook.cells = [  # what the engine runs here: code cells, not those that need a GPU
        c for c in notebook.cells if c.cell_type == "code" and "requires-cuda" not in c.metadata.get("tags", [])
    ]
    with tempfile.TemporaryDirectory(prefix="bench-kernel-") as folder:
        client = NotebookClient(
            notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": folder}},
            extra_arguments=["--log-level=ERROR"],  # not the kernel's warning about TCP on every start
        )  # fmt: skip
        start = time.perf_counter()
        client.execute()  # cells tagged raises-exception may raise; any other error stops the bench
        return time.perf_counter() - start


if __name__ == "__main__":
    os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")  # jupyter_core's warning about its paths
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.exit(main())
