"""The forked kernels the notebook test runs notebooks in (tests/forked_kernels.py) behave as fresh ones where a
notebook can tell: their own namespace, folder and environment, and nothing left running once they end."""

from __future__ import annotations

import asyncio
import os
import signal

import nbformat
import pytest
from forked_kernels import children, serving, wait_gone
from jupyter_client.manager import start_new_kernel
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def notebook(*cells: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell) for cell in cells])


def run(nb: nbformat.NotebookNode, kernel: str, folder: str) -> nbformat.NotebookNode:
    client = NotebookClient(nb, timeout=60, kernel_name=kernel, resources={"metadata": {"path": folder}})
    asyncio.run(client.async_execute())
    return nb


def test_a_forked_kernel_has_its_own_namespace_folder_and_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("FORKED_KERNEL_MARK", "the reader's")
    with serving(["numpy"]) as server:
        nb = run(notebook("import os", "print(os.getcwd(), os.environ['FORKED_KERNEL_MARK'], 'numpy' in dir())"),
                 server.kernel, str(tmp_path))  # fmt: skip
        assert nb.cells[1].outputs[0]["text"] == f"{tmp_path} the reader's False\n"
        # numpy is imported in the server, but a notebook that uses it without importing it stops as it would
        with pytest.raises(CellExecutionError, match=r"NameError\S*: name .numpy. is not defined"):
            run(notebook("numpy.zeros(1)"), server.kernel, str(tmp_path))
        assert wait_gone(children(server.pid)) == [], "a kernel outlived its notebook"


def test_a_kernel_whose_client_is_killed_ends_with_what_it_started(tmp_path):
    with serving([]) as server:
        manager, client = start_new_kernel(kernel_name=server.kernel, cwd=str(tmp_path))
        try:
            said: list[str] = []
            client.execute_interactive(
                "import os, subprocess; print(os.getpid(), subprocess.Popen(['sleep', '60']).pid)",
                output_hook=lambda msg: said.append(msg["content"].get("text", "")), timeout=60,
            )  # fmt: skip
            started = [int(pid) for pid in "".join(said).split()]
            assert len(started) == 2 and started[0] in children(server.pid)
            os.kill(manager.provisioner.pid, signal.SIGKILL)  # the client jupyter_client started: its last resort
            assert wait_gone(started) == [], "the kernel or its process outlived the kernel's client"
        finally:
            client.stop_channels()
            manager.shutdown_kernel(now=True)
