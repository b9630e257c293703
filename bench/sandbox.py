"""What the sandbox costs: a network namespace per example or per worker, and the site's examples before and after.

    .venv/bin/python bench/sandbox.py network [--runs 200]
    .venv/bin/python bench/sandbox.py site --baseline a2ede05 [--runs 3]

``network`` forks children of a process that has imported torch, as the worker does, and
times a child that makes a network namespace of its own and brings its loopback up (per
example) against one that does nothing (per worker: the worker made the namespace once).
Linux only; as an ordinary user it first enters a user namespace, as the worker does.

``site`` runs ``python -m mkdocs_examples run --no-cache`` (the site's examples, cold, no
cache) with this tree's engine and with the engine of ``--baseline`` (a git ref, its ``src/``
put first on PYTHONPATH), one after the other, ``--runs`` times, and prints each run's time
as the engine reports it and the medians. Both share the machine's state of the moment; on
a machine shared with other work, compare only runs of one invocation.
"""

from __future__ import annotations

import argparse
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
        archive = Path(folder, "src.tar")
        subprocess.run(["git", "archive", "-o", archive, baseline, "src"], cwd=ROOT, check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(folder, filter="data")
        engines = {"this tree": None, baseline: str(Path(folder, "src"))}
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("network").add_argument("--runs", type=int, default=200)
    compare = commands.add_parser("site")
    compare.add_argument("--baseline", required=True, help="a git ref whose engine to compare with")
    compare.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.command == "network":
        network(args.runs)
    else:
        site(args.baseline, args.runs)


if __name__ == "__main__":
    main()
