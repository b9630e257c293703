"""The forked kernels the notebook test runs notebooks in (tests/forked_kernels.py) behave as fresh ones where a
notebook can tell: their own namespace, folder and environment, and nothing left running once they end."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

import nbformat
import pytest
from forked_kernels import children, kernel_folder, serving, wait_gone
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def notebook(*cells: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell) for cell in cells])


def run(nb: nbformat.NotebookNode, kernel: str, folder: Path) -> nbformat.NotebookNode:
    box, config = kernel_folder(folder)
    client = NotebookClient(nb, timeout=60, kernel_name=kernel, config=config,
                            resources={"metadata": {"path": str(box)}})  # fmt: skip
    asyncio.run(client.async_execute())
    return nb


def test_a_forked_kernel_has_its_own_namespace_folder_and_allowed_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("FORKED_KERNEL_MARK", "the builder's")  # not on the sandbox's allow-list
    monkeypatch.setenv("LANG", "C.UTF-8")  # on it
    with serving(["numpy"]) as server:
        shown = "os.getcwd(), os.environ.get('FORKED_KERNEL_MARK'), os.environ['LANG'], 'numpy' in dir()"
        cells = "import os", f"print({shown})"
        nb = run(notebook(*cells), server.kernel, tmp_path)
        assert nb.cells[1].outputs[0]["text"] == f"{tmp_path / 'box' / 'tmp'} None C.UTF-8 False\n"
        # numpy is imported in the server, but a notebook that uses it without importing it stops as it would
        with pytest.raises(CellExecutionError, match=r"NameError\S*: name .numpy. is not defined"):
            run(notebook("numpy.zeros(1)"), server.kernel, tmp_path)
        assert wait_gone(children(server.pid)) == [], "a kernel outlived its notebook"


def test_a_kernel_whose_client_is_killed_ends_with_what_it_started(tmp_path):
    with serving([]) as server:
        box, config = kernel_folder(tmp_path)
        manager = KernelManager(kernel_name=server.kernel, config=config)
        manager.start_kernel(cwd=str(box))
        client = manager.client()
        client.start_channels()
        client.wait_for_ready(timeout=60)
        try:
            # the kernel runs in a PID namespace of its own: what it started is found from here by its command line
            client.execute_interactive("import subprocess; subprocess.Popen(['sleep', '3599'])", timeout=60)
            kernels, started = children(server.pid), _processes(b"sleep\x003599\x00")
            assert len(kernels) == 1 and len(started) == 1
            os.kill(manager.provisioner.pid, signal.SIGKILL)  # the client jupyter_client started: its last resort
            assert wait_gone(kernels + started) == [], "the kernel or its process outlived the kernel's client"
        finally:
            client.stop_channels()
            manager.shutdown_kernel(now=True)


def _processes(cmdline: bytes) -> list[int]:
    """The processes of this machine whose command line is ``cmdline``."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and (entry / "cmdline").read_bytes() == cmdline:
                found.append(int(entry.name))
    return found
