"""How close the engine comes to the fastest possible run of this site's examples.

    .venv/bin/python bench/bench.py [--runs 3] [--kernels 4]     (or: make bench)

Each run measures, side by side on the same machine at the same moment:

(a) engine   wall time of one cold run of every example of the site, as
             `python -m mkdocs_examples run --no-cache` does it: a fresh interpreter reads
             mkdocs.yml, starts the worker, which imports `preload`, and runs the examples;
(b) floor    what no engine can beat: one fresh interpreter importing the `preload`
             modules of mkdocs.yml, plus the examples' own compute spread over the cores:
             max(longest example, total / cores). An example's compute is measured without
             the engine: its cells run in a fork of a process that imported `preload`, with
             no sandbox and a cold inductor cache of its own (--floor-once), one at a time;
(c) ratio    engine / floor;
(d) kernels  a Jupyter kernel per example (jupytext + nbclient) for a few examples, the
             way a notebook-based tool runs them; the whole site is EXTRAPOLATED from
             their mean: mean * examples / cores (kernels in parallel, ideally packed).

See bench/README.md for how to read the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
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
    rows = []
    for run in range(1, args.runs + 1):
        engine_s, results = _time_engine(args.config_file)
        failed = [r["path"] for r in results if r["failed"]]
        if failed:
            print(f"run {run}: examples failed, figures not comparable: {', '.join(failed)}", file=sys.stderr)
            return 1
        import_s = _time_import(preload)
        floors = _time_floor(args.config_file)
        compute = list(floors.values())
        spread = max(max(compute), sum(compute) / cores)
        engine_of = {r["path"]: r["seconds"] for r in results}
        slowest = max(floors, key=floors.__getitem__)
        kernels = [_time_kernel(examples_dir / path) for path in kernel_examples]
        row = {
            "engine": engine_s,
            "import": import_s,
            "compute": sum(compute),
            "spread": spread,
            "floor": import_s + spread,
            "examples": len(results),
            "kernel_mean": statistics.mean(kernels) if kernels else float("nan"),
            "slowest_engine": engine_of[slowest],
            "slowest_floor": floors[slowest],
        }
        row["ratio"] = row["engine"] / row["floor"]
        row["kernels_site"] = row["kernel_mean"] * len(results) / cores
        rows.append(row)
        if run == 1:
            top = sorted(floors, key=floors.__getitem__, reverse=True)[:3]
            listed = ", ".join(f"{path} {floors[path]:.2f} s" for path in top)
            print(f"examples: {len(results)}; total compute (unsandboxed) {sum(compute):.2f} s; slowest: {listed}")
            if kernels:
                print(f"kernel examples: {', '.join(kernel_examples)}")
            print()
            print(_HEADER)
        print(_line(f"run {run}", row), flush=True)
    median = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
    print(_line("median", median))
    engine, floor = median["slowest_engine"], median["slowest_floor"]
    print(f"\nits slowest example, {slowest}: engine {engine:.2f} s (fork to exit, sandboxed), floor {floor:.2f} s, "
          f"ratio {engine / floor:.2f} (medians)")  # fmt: skip
    return 0


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
            "failed": o.failure is not None,
        }
        for path, o in outcomes.items()
    ]
    print(json.dumps(report))
    return 0


def _time_floor(config_file: Path) -> dict[str, float]:
    """(b), second part: each example's own compute, without the engine (--floor-once)."""
    done = subprocess.run(
        [sys.executable, __file__, "--floor-once", "-f", str(config_file)],
        capture_output=True, text=True, check=True, cwd=config_file.parent,
    )  # fmt: skip
    return json.loads(done.stdout)


def _floor_once(config_file: Path) -> int:
    """In the child: import `preload`, then run each example's cells in a fork, unsandboxed, and time it.

    What the engine cannot avoid is kept: a fork of the preloaded process, the options' seed and
    threads, the cells but those that need a GPU, a fresh folder and a cold inductor cache. What
    it adds is left out: the sandbox, capturing, cleaning and recording the output, the pool."""
    import importlib
    import random
    import shutil

    from mkdocs_examples.settings import load_site
    from mkdocs_examples.source.cells import Example, find_examples

    site = load_site(config_file)
    for name in site.config.preload:
        importlib.import_module(name)
    seconds = {}
    for path in find_examples(site.examples_dir, []):
        example = Example.from_source(path, site.examples_dir / path, (site.examples_dir / path).read_text())
        folder = tempfile.mkdtemp(prefix="bench-floor-")
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            _floor_child(example, Path(folder), site.config, random)
        _, status = os.waitpid(pid, 0)
        seconds[path] = time.perf_counter() - start
        error = Path(folder, "error").read_text() if os.path.exists(Path(folder, "error")) else ""
        shutil.rmtree(folder, ignore_errors=True)
        if status != 0:
            print(f"{path}: failed without the engine (status {status})\n{error}", file=sys.stderr)
            return 1
    print(json.dumps(seconds))
    return 0


def _floor_child(example, folder: Path, config, random) -> None:
    """In the fork: the example's cells, as `__main__`, in ``folder``; exits 0 unless a cell fails unexpectedly."""
    import types

    for variable, name in (("TORCHINDUCTOR_CACHE_DIR", "inductor"), ("TRITON_CACHE_DIR", "triton"), ("TMPDIR", "tmp")):
        os.environ[variable] = str(folder / name)
        (folder / name).mkdir()
    tempfile.tempdir = None
    os.chdir(folder)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    random.seed(config.seed)
    if "torch" in sys.modules:
        sys.modules["torch"].manual_seed(config.seed)
        sys.modules["torch"].set_num_threads(config.threads)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(config.seed)
    module = types.ModuleType("__main__")
    module.__file__ = str(example.file)
    sys.modules["__main__"] = module
    code = 0
    for cell in example.cells:
        if cell.has("requires-cuda"):
            continue
        try:
            exec(compile("\n" * (cell.lineno - 1) + cell.source, str(example.file), "exec"), module.__dict__)
        except BaseException:
            code = 0 if cell.has("raises-exception") else 1
            if code:
                import traceback

                (folder / "error").write_text(traceback.format_exc())
                break
    os._exit(code)


def _time_import(preload: list[str]) -> float:
    """(b), first part: one fresh interpreter that imports the preloaded modules, and nothing else."""
    code = "".join(f"import {name}\n" for name in preload) or "pass"
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


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
