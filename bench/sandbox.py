"""What the sandbox costs: a network namespace per example or per worker, and the site's examples before and after.

    .venv/bin/python bench/sandbox.py network [--runs 200]
    .venv/bin/python bench/sandbox.py site --baseline a2ede05 [--runs 3]
    .venv/bin/python bench/sandbox.py overhead --baseline a2ede05 [--runs 3] [--count 40] [--parallel 2]

``network`` forks children of a process that has imported torch, as the worker does, and
times a child that makes a network namespace of its own and brings its loopback up (per
example) against one that does nothing (per worker: the worker made the namespace once).
Linux only; as an ordinary user it first enters a user namespace, as the worker does.

``site`` runs ``python -m mkdocs_examples run --no-cache`` (the site's examples, cold, no
cache) with this tree's engine and with the engine of ``--baseline`` (a git ref, its ``src/``
put first on PYTHONPATH), one after the other, ``--runs`` times, and prints each run's time
as the engine reports it and the medians. Both share the machine's state of the moment; on
a machine shared with other work, compare only runs of one invocation.

``overhead`` runs ``--count`` one-line examples through a pool whose worker preloads torch, with
this tree's engine and with ``--baseline``'s, in turn: what the engine costs per example and
nothing else, in wall seconds, in ``Result.phases`` and in the CPU seconds of the example's
processes (what the worker reaped: on a busy machine, the figure to compare).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def network(runs: int) -> None:
    import torch  # noqa: F401  (fork costs what it costs in the worker: torch's memory is mapped)

    from mkdocs_examples.execute.child import namespaces

    why = namespaces.prepare()
    if why:
        sys.exit(f"no network namespace here: {why}")
    times: dict[str, list[float]] = {"per worker (nothing per child)": [], "per example (unshare + lo up)": []}
    for _ in range(runs):
        for name, per_example in (("per worker (nothing per child)", False), ("per example (unshare + lo up)", True)):
            start = time.perf_counter()
            pid = os.fork()
            if pid == 0:
                if per_example:
                    namespaces.isolate_network()
                os._exit(0)
            _, status = os.waitpid(pid, 0)
            assert status == 0
            times[name].append(time.perf_counter() - start)
    for name, values in times.items():
        values.sort()
        print(f"{name:32} fork+exit+wait: median {statistics.median(values) * 1e3:6.2f} ms, "
              f"p90 {values[int(len(values) * 0.9)] * 1e3:6.2f} ms ({runs} runs)")  # fmt: skip


def site(baseline: str, runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        engines = {"this tree": None, baseline: _baseline_src(baseline, folder)}
        seconds: dict[str, list[float]] = {name: [] for name in engines}
        for run in range(1, runs + 1):
            for name, path in engines.items():
                env = dict(os.environ)
                if path:
                    env["PYTHONPATH"] = os.pathsep.join(filter(None, [path, env.get("PYTHONPATH")]))
                done = subprocess.run(
                    [sys.executable, "-m", "mkdocs_examples", "run", "--no-cache"], cwd=ROOT, env=env,
                    capture_output=True, text=True,
                )  # fmt: skip
                found = re.search(r"^(\d+) examples in ([\d.]+) s: .*?(\d+) failed", done.stdout, re.MULTILINE)
                if not found:
                    sys.exit(f"{name}: no summary in its output:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
                seconds[name].append(float(found[2]))
                print(f"run {run}: {name:12} {found[1]} examples in {found[2]} s, {found[3]} failed", flush=True)
    for name, values in seconds.items():
        print(f"median {name:12} {statistics.median(values):.1f} s")


def _baseline_src(baseline: str, folder: str) -> str:
    archive = Path(folder, "src.tar")
    subprocess.run(["git", "archive", "-o", archive, baseline, "src"], cwd=ROOT, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    return str(Path(folder, "src"))


def overhead(baseline: str, runs: int, count: int, parallel: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        engines = {"this tree": None, baseline: _baseline_src(baseline, folder)}
        found: dict[str, list[dict]] = {name: [] for name in engines}
        for run in range(1, runs + 1):
            for name, path in engines.items():
                env = dict(os.environ)
                if path:
                    env["PYTHONPATH"] = os.pathsep.join(filter(None, [path, env.get("PYTHONPATH")]))
                command = [sys.executable, __file__, "overhead-once", f"--count={count}", f"--parallel={parallel}"]
                done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
                if done.returncode:
                    sys.exit(f"{name}: {done.stderr[-2000:]}")
                figures = json.loads(done.stdout.splitlines()[-1])
                found[name].append(figures)
                print(f"run {run}: {name:12} {_ms(figures)}", flush=True)
    for name, values in found.items():
        medians = {key: statistics.median(v[key] for v in values) for key in values[0]}
        print(f"median {name:12} {_ms(medians)}")


def _ms(figures: dict[str, float]) -> str:
    return " ".join(f"{key} {value * 1e3:.1f} ms" for key, value in figures.items())


def overhead_once(count: int, parallel: int) -> None:
    """One pass of ``overhead``, with the engine on PYTHONPATH: one JSON line of seconds per example."""
    from mkdocs_examples.execute.pool import Pool
    from mkdocs_examples.results import Options
    from mkdocs_examples.source.cells import Example, parse_cells

    with tempfile.TemporaryDirectory() as project:
        source = "x = 1\nprint(x)\n"
        examples = [Example(f"e{n}.py", Path(project, f"e{n}.py"), source, parse_cells(source)) for n in range(count)]
        pool = Pool(["torch"], project=[Path(project)])
        worker = pool.ready()["pid"]
        start = time.monotonic()
        phases: dict[str, list[float]] = {}
        for example, result in pool.run(examples, Options(), timeout=60, parallel=parallel):
            if result.failure is not None:
                sys.exit(f"{example.path} failed: {result.failure}")
            for key, value in result.phases.items():
                phases.setdefault(key, []).append(value)
        wall = time.monotonic() - start
        fields = Path(f"/proc/{worker}/stat").read_text().rsplit(")", 1)[1].split()
        reaped = (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")  # cutime + cstime
        pool.close()
    medians = {key: statistics.median(values) for key, values in phases.items() if key not in ("wait", "cpu")}
    print(json.dumps({"wall": wall / count, "cpu": reaped / count, **medians}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("network").add_argument("--runs", type=int, default=200)
    compare = commands.add_parser("site")
    compare.add_argument("--baseline", required=True, help="a git ref whose engine to compare with")
    compare.add_argument("--runs", type=int, default=3)
    for name in ("overhead", "overhead-once"):
        each = commands.add_parser(name)
        if name == "overhead":
            each.add_argument("--baseline", required=True, help="a git ref whose engine to compare with")
            each.add_argument("--runs", type=int, default=3)
        each.add_argument("--count", type=int, default=40)
        each.add_argument("--parallel", type=int, default=2)
    args = parser.parse_args()
    if args.command == "network":
        network(args.runs)
    elif args.command == "overhead":
        overhead(args.baseline, args.runs, args.count, args.parallel)
    elif args.command == "overhead-once":
        overhead_once(args.count, args.parallel)
    else:
        site(args.baseline, args.runs)


if __name__ == "__main__":
    main()
