"""Jupyter kernels forked from one process that has imported ipykernel and the site's ``preload`` modules.

A fresh kernel spends about 1.3 s of CPU starting Python, ipykernel and torch before its first cell; over the
~120 downloaded notebooks that is most of the notebook test's cost. Here a server imports those once and forks a
kernel for each request, as the engine's worker forks each example: the notebook still runs in a real ipykernel,
driven by nbclient over Jupyter's protocol, with a fresh Python namespace, so a cell that forgets an import still
fails. What a fork does not show is a notebook that needs a variable set before torch is first imported; the
site's examples cannot rely on that either, since the engine preloads the same modules.

A downloaded notebook is a stranger's code as much as the example it came from, so each kernel enters the
engine's sandbox (``sandbox.confine``, the same call the engine's worker makes) before ipykernel starts: the
allow-listed environment, its own root, network, processes and folder, Landlock, the limits. It talks to its
client over Unix sockets in that folder (:func:`kernel_folder`), since its network namespace has no way out.

:func:`serving` starts the server and writes a kernelspec for it (``KERNEL``) into a folder that it puts first on
``JUPYTER_PATH``. The kernelspec's command is a small client on the standard library alone: it hands the
connection file, its folder, environment and standard streams to the server, forwards signals to the kernel,
and ends with the kernel's exit code. A client killed outright (jupyter_client's last resort) closes its socket,
and the server kills that kernel's process group.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from traitlets.config import Config

from mkdocs_examples.results import Options

KERNEL = "forked-python3"

SERVER = r"""
import ctypes, gc, importlib, json, os, selectors, signal, socket, sys, traceback
from pathlib import Path
from mkdocs_examples.execute.child import sandbox
from mkdocs_examples.results import Options
path, setup = sys.argv[1], json.loads(sys.argv[2])
modules, options = setup["preload"], Options(**setup["options"])
prepared = sandbox.prepare([])  # while one thread, as the engine's worker: a notebook reads nothing of the project
# prepare() made this process a subreaper for the worker's sake; a kernel's PID namespace dies with it here
ctypes.CDLL(None).prctl(36, 0, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER off: what a kernel orphans is not ours to reap
for name in ["ipykernel.kernelapp", "ipykernel.ipkernel", *modules]:
    importlib.import_module(name)
gc.collect(); gc.freeze()  # as the engine's worker: no kernel's collection walks (and copies) all that
listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
listener.bind(path)
listener.listen(64)
print("ready", flush=True)
chosen = selectors.DefaultSelector()
chosen.register(listener, selectors.EVENT_READ, None)
kernels = {}  # pid: (client socket, pidfd)

def kernel(request, streams):
    # In the fork: the request's standard streams, folder and environment, a session of its own, then ipykernel
    for fd, stream in enumerate(streams):
        os.dup2(stream, fd)
    for stream in streams:
        os.close(stream)
    chosen.close(); listener.close()
    for client, pidfd in kernels.values():
        client.close(); os.close(pidfd)
    os.setsid()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # A notebook is a stranger's code: the kernel enters the engine's sandbox before it starts, in the
    # folder its working folder is the box of; it talks to its client over Unix sockets in that box
    box = Path(request["cwd"])
    connection = Path(request["connection_file"])
    if box.name != "box" or connection.parent != box:
        raise SystemExit(f"a forked kernel runs in a folder named box that holds its connection file, not {box}")
    os.environ.clear(); os.environ.update(request["env"])
    sandbox.confine(prepared, box.parent, options)  # the environment's allow-list, its own root, network...
    # Its working folder is its TMPDIR, empty, as the plain scripts': the box holds folders named as modules
    # (triton, torch: TRITON_CACHE_DIR, TORCH_HOME), and a kernel imports from its working folder first
    os.chdir(os.environ["TMPDIR"])
    # parent_handle=1: no poller for a parent (the server ends the kernel when its client goes) and no banner
    sys.argv = ["ipykernel_launcher", "-f", str(connection), "--IPKernelApp.parent_handle=1"]
    from ipykernel.kernelapp import IPKernelApp
    IPKernelApp.launch_instance(argv=sys.argv[1:])

def end(pid, code):
    client, pidfd = kernels.pop(pid)
    chosen.unregister(client); chosen.unregister(pidfd)
    with_client = code is not None
    try:
        os.killpg(pid, signal.SIGKILL)  # what the kernel left running in its session
    except ProcessLookupError:
        pass
    if with_client:
        try:
            client.send(f"exit {code}".encode())
        except OSError:
            pass
    client.close(); os.close(pidfd)

while True:
    for key, _ in chosen.select():
        if key.data is None:  # a client asks for a kernel
            client, _ = listener.accept()
            message, streams, _, _ = socket.recv_fds(client, 1 << 20, 3)
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    kernel(json.loads(message), streams)
                    code = 0
                except BaseException:
                    traceback.print_exc()
                finally:
                    sys.stdout.flush(); sys.stderr.flush()
                    os._exit(code)
            for stream in streams:
                os.close(stream)
            pidfd = os.pidfd_open(pid)
            kernels[pid] = (client, pidfd)
            chosen.register(client, selectors.EVENT_READ, ("client", pid))
            chosen.register(pidfd, selectors.EVENT_READ, ("kernel", pid))
            client.send(f"pid {pid}".encode())
        elif key.data[1] in kernels:
            what, pid = key.data
            if what == "kernel":  # it ended: tell its client how
                end(pid, os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
            elif not key.fileobj.recv(16):  # its client is gone: so is the kernel
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                end(pid, None)
"""

CLIENT = r"""
import json, os, signal, socket, sys
server = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
server.connect(sys.argv[1])
request = {"connection_file": os.path.abspath(sys.argv[2]), "cwd": os.getcwd(), "env": dict(os.environ)}
socket.send_fds(server, [json.dumps(request).encode()], [0, 1, 2])
pid = int(server.recv(64).decode().split()[1])
def forward(number, frame):
    try:
        os.kill(pid, number)
    except ProcessLookupError:  # it has ended: its exit code is on its way
        pass
for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
    signal.signal(number, forward)
said = server.recv(64).decode()
sys.exit(int(said.split()[1]) % 256 if said.startswith("exit ") else 1)
"""


@dataclass(frozen=True)
class Server:
    kernel: str  # the kernelspec's name, for nbclient's ``kernel_name``
    pid: int  # the server's: its children are the kernels


@contextlib.contextmanager
def serving(preload: list[str], env: dict[str, str] | None = None, options: Options | None = None) -> Iterator[Server]:
    """A running server and its kernelspec on ``JUPYTER_PATH`` (restored after); its kernels run in the
    engine's sandbox with ``options`` (its limits), each in a folder :func:`kernel_folder` makes."""
    with tempfile.TemporaryDirectory(prefix="forked-kernels-") as folder:
        path = os.path.join(folder, "server")
        setup = json.dumps({"preload": preload, "options": asdict(options or Options())})
        server = subprocess.Popen([sys.executable, "-c", SERVER, path, setup], env=env, stdout=subprocess.PIPE,
                                  text=True, start_new_session=True)  # fmt: skip
        try:
            ready = server.stdout.readline() if server.stdout else ""
            if ready.strip() != "ready":
                raise RuntimeError(f"the kernel server did not start (exit code {server.wait(timeout=30)})")
            spec = Path(folder, "kernels", KERNEL)
            spec.mkdir(parents=True)
            argv = [sys.executable, "-I", "-S", "-c", CLIENT, path, "{connection_file}"]
            spec.joinpath("kernel.json").write_text(json.dumps(
                {"argv": argv, "display_name": "Python 3 (forked)", "language": "python", "interrupt_mode": "signal"}
            ))  # fmt: skip
            before = os.environ.get("JUPYTER_PATH")
            os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [folder, before]))
            try:
                yield Server(KERNEL, server.pid)
            finally:
                if before is None:
                    os.environ.pop("JUPYTER_PATH", None)
                else:
                    os.environ["JUPYTER_PATH"] = before
        finally:  # the server and every kernel still running (each in a session of its own, below the server)
            kernels = children(server.pid)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGKILL)
            for pid in kernels:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
            server.wait()
            if server.stdout:
                server.stdout.close()


def kernel_folder(folder: Path) -> tuple[Path, Config]:
    """The box a kernel of the server runs in, made beneath ``folder``, and the configuration that has
    nbclient's kernel manager put its connection file and Unix sockets there (``NotebookClient(config=…)``):
    in its own network namespace a kernel reaches no TCP port of the machine's, and none reaches it."""
    box = folder / "box"
    box.mkdir(parents=True, exist_ok=True)
    manager = {"transport": "ipc", "connection_file": str(box / "kernel.json"), "ip": str(box / "kernel")}
    return box, Config({"KernelManager": manager})


def children(pid: int) -> list[int]:
    with contextlib.suppress(OSError):
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return []


def wait_gone(pids: list[int], seconds: float = 5) -> list[int]:
    """Those of ``pids`` still running after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        alive = [pid for pid in pids if Path(f"/proc/{pid}").exists()]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)
