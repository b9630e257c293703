"""The edit loop under `mkdocs serve`: from saving a file to the server serving the new page.

Copies what the site needs into temporary folders (the working tree is never touched), starts
the real `mkdocs serve` there, one server per mode, side by side, and alternates between them:

- **full**: the whole site as it is published, both languages and the search index
  (`PREVIEW=all`, as `make serve PREVIEW=all` previews it);
- **fast**: what `make serve` builds (`PREVIEW` unset: the English pages, no search index);
- **bare**: the same without recordings/ (no release picker, no other environment's outputs): what the
  recordings of other environments cost the edit loop is fast/bare.

Each run edits an example (a cell that a known page embeds prints a new token) and then that
page's prose (a new sentence), and times each from the write until the server serves the page
with the token in it, polling every 20 ms. The server itself holds a page request while it
rebuilds, as it does for a browser, so what is timed is what a reader waits for. Beside each
time, the CPU time the server's process spent from the write to the page (Linux: its rebuild
and its file watcher; the example's own run is the worker's): a figure that moves less with
the machine's load than the time does.

    .venv/bin/python bench/serve.py --runs 3
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
COPIED = ["mkdocs.yml", "data", "docs", "examples", "overrides", "recordings"]
CACHE = ".cache"  # copied when it exists, so that the servers start warm
EXAMPLE = "examples/tensors/cat_and_stack.py"
CELL_LINE = "print(torch.cat([x, y], dim=0))\n"  # the last line of the cell `cat`
PAGE = "docs/en/tensors/cat-and-stack.md"
URL = "tensors/cat-and-stack/"
MODES = {"full": {"PREVIEW": "all"}, "fast": {}, "bare": {}}
BARE = {"bare"}  # the modes whose copy has no recordings/
POLL = 0.02
TIMEOUT = 180.0


class Server:
    def __init__(self, mode: str, where: Path) -> None:
        self.mode, self.where = mode, where
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}{_mount_path()}"
        self.log = open(where / "serve.log", "w")  # noqa: SIM115 (closed in stop)
        env = {k: v for k, v in os.environ.items() if k != "PREVIEW"}
        env.update(MODES[mode], NO_MKDOCS_2_WARNING="1")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{self.port}"],
            cwd=where, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    def wait_ready(self) -> float:
        start = time.perf_counter()
        self.wait_for(URL, None, start)
        return time.perf_counter() - start

    def wait_for(self, path: str, token: str | None, start: float) -> float:
        """Seconds from ``start`` until the server serves ``path`` (containing ``token``, if given)."""
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.mode}: mkdocs serve exited; see {self.where / 'serve.log'}")
            try:
                with urllib.request.urlopen(self.url + path, timeout=TIMEOUT) as response:
                    body = response.read().decode("utf-8", "replace")
                if token is None or token in body:
                    return time.perf_counter() - start
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.perf_counter() - start > TIMEOUT:
                raise RuntimeError(f"{self.mode}: no page with {token!r} after {TIMEOUT:.0f} s")
            time.sleep(POLL)

    def cpu(self) -> float:
        """CPU seconds the server's process has spent so far (Linux's /proc; NaN elsewhere)."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime

    def stop(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGINT)  # mkdocs shuts its worker down on Ctrl-C
            self.process.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # whatever is left of the group
        except ProcessLookupError:
            pass
        self.process.wait()
        self.log.close()


def _mount_path() -> str:
    """Where `mkdocs serve` serves the site: the path of `site_url` (e.g. /pytorch-tips/)."""
    found = re.search(r"^site_url:\s*(\S+)", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    path = urlsplit(found[1]).path if found else "/"
    return path.rstrip("/") + "/"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _copy(where: Path, recordings: bool = True) -> None:
    for name in COPIED:
        source = ROOT / name
        if name == "recordings" and not recordings:
            continue
        if source.is_dir():
            shutil.copytree(source, where / name)
        else:
            shutil.copy2(source, where / name)
    if (ROOT / CACHE).is_dir():
        shutil.copytree(ROOT / CACHE, where / CACHE)


def _write(path: Path, text: str) -> float:
    """Writes ``text`` and returns the moment it was written (the moment the contributor saves)."""
    path.write_text(text, encoding="utf-8")
    return time.perf_counter()


def edit_example(server: Server, original: str) -> tuple[float, float]:
    """Seconds from the write to the page, and CPU seconds of the server meanwhile."""
    head, tail = "sb" + uuid.uuid4().hex[:8], uuid.uuid4().hex[:8]
    # the page shows the code too: the token only appears joined in what the cell printed
    text = original.replace(CELL_LINE, f'{CELL_LINE}print("{head}" + "{tail}")\n', 1)
    assert text != original, f"{EXAMPLE} no longer has the line {CELL_LINE!r}"
    cpu = server.cpu()
    start = _write(server.where / EXAMPLE, text)
    return server.wait_for(URL, head + tail, start), server.cpu() - cpu


def edit_prose(server: Server, original: str) -> tuple[float, float]:
    """Seconds from the write to the page, and CPU seconds of the server meanwhile."""
    token = "sb" + uuid.uuid4().hex
    cpu = server.cpu()
    start = _write(server.where / PAGE, f"{original.rstrip()}\n\nA sentence added by the bench: {token}.\n")
    return server.wait_for(URL, token, start), server.cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--modes", default="full,fast,bare", help="comma-separated, of: " + ", ".join(MODES))
    parser.add_argument("--keep", action="store_true", help="keep the copies and the servers' logs (serve.log)")
    args = parser.parse_args()
    modes = args.modes.split(",")
    if unknown := set(modes) - set(MODES):
        parser.error(f"unknown mode(s): {', '.join(sorted(unknown))}")

    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    example = (ROOT / EXAMPLE).read_text(encoding="utf-8")
    page = (ROOT / PAGE).read_text(encoding="utf-8")
    times: dict[tuple[str, str], list[float]] = {(m, e): [] for m in modes for e in ("example", "prose")}
    cpus: dict[tuple[str, str], list[float]] = {(m, e): [] for m in modes for e in ("example", "prose")}
    tmp = tempfile.mkdtemp(prefix="serve-bench-")
    servers: list[Server] = []
    try:
        for mode in modes:
            where = Path(tmp) / mode
            where.mkdir()
            _copy(where, recordings=mode not in BARE)
            servers.append(Server(mode, where))
        for server in servers:
            print(f"{server.mode}: serving after {server.wait_ready():.1f} s (first build)", flush=True)
        time.sleep(2)  # the servers' first polls of the watched folders
        print(f"\n{'run':>3}  {'mode':<5} {'example edit (cpu)':>19} {'prose edit (cpu)':>17}")
        for run in range(1, args.runs + 1):
            for server in servers:
                a, a_cpu = edit_example(server, example)
                time.sleep(1)
                b, b_cpu = edit_prose(server, page)
                time.sleep(1)
                times[server.mode, "example"].append(a)
                times[server.mode, "prose"].append(b)
                cpus[server.mode, "example"].append(a_cpu)
                cpus[server.mode, "prose"].append(b_cpu)
                print(f"{run:>3}  {server.mode:<5} {a:>8.2f} s ({a_cpu:.2f} s) {b:>7.2f} s ({b_cpu:.2f} s)", flush=True)
    finally:
        for server in servers:
            server.stop()
        if args.keep:
            print(f"the copies and the servers' logs (serve.log) are in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    print("\nmedians")
    medians = {key: statistics.median(values) for key, values in times.items()}
    cpu = {key: statistics.median(values) for key, values in cpus.items()}
    for mode in modes:
        print(f"     {mode:<5} {medians[mode, 'example']:>8.2f} s ({cpu[mode, 'example']:.2f} s) "
              f"{medians[mode, 'prose']:>7.2f} s ({cpu[mode, 'prose']:.2f} s)")
    for a, b in (("full", "fast"), ("fast", "bare")):
        if a in modes and b in modes:
            ratio = {e: medians[a, e] / medians[b, e] for e in ("example", "prose")}
            print(f"     {a}/{b} {ratio['example']:>7.1f} x {ratio['prose']:>9.1f} x")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
