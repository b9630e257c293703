"""Every lane that runs an example's code confines it as the engine does: the engine's worker, the kernel a
downloaded notebook runs in (tests/forked_kernels.py) and the plain script (tests/test_plain_run.py), all
through ``sandbox.confine``.

One probe runs through each lane. It tries what a stranger's pull request would: write a file outside its
folder, read a file of the builder's, see a variable of the builder's environment that is not on the
sandbox's allow-list, and connect to a service listening on the machine's 127.0.0.1. Run unconfined, the
same probe does all four, so a lane that stops confining fails here.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from forked_kernels import kernel_folder, serving
from nbclient import NotebookClient
from test_plain_run import forked

from mkdocs_examples.execute.child import sandbox

SECRET = "MKX_PROBE_TOKEN"  # not on the sandbox's allow-list

PROBE = """
import json, os, socket
found = {{}}
try:
    with open({written!r}, "w") as handle:
        handle.write("a stranger was here")
    found["wrote outside its folder"] = True
except OSError:
    found["wrote outside its folder"] = False
try:
    with open({secret!r}) as handle:
        found["read the builder's file"] = handle.read() == "the builder's"
except OSError:
    found["read the builder's file"] = False
found["saw the builder's variable"] = os.environ.get({name!r}) == "the builder's"
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
    found["reached 127.0.0.1"] = True
except OSError:
    found["reached 127.0.0.1"] = False
print("PROBE", json.dumps(found))
"""


@pytest.fixture
def probe(tmp_path, monkeypatch) -> Iterator[str]:
    """The probe's source, aimed at a folder, a file, a variable and a listener of this test's."""
    builder = tmp_path / "builder"
    builder.mkdir()
    (builder / "secret.txt").write_text("the builder's")
    monkeypatch.setenv(SECRET, "the builder's")
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        yield PROBE.format(written=str(builder / "written.txt"), secret=str(builder / "secret.txt"), name=SECRET,
                           port=port)  # fmt: skip


def found(output: str) -> dict[str, bool]:
    line = next(line for line in output.splitlines() if line.startswith("PROBE "))
    return json.loads(line.removeprefix("PROBE "))


def confined(output: str) -> list[str]:
    """What the probe managed; [] when the lane confined it."""
    return [what for what, done in found(output).items() if done]


def test_the_probe_does_all_it_tries_when_nothing_confines_it(probe, tmp_path):
    script = tmp_path / "probe.py"
    script.write_text(probe)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=True)
    assert confined(done.stdout) == ["wrote outside its folder", "read the builder's file",
                                     "saw the builder's variable", "reached 127.0.0.1"]  # fmt: skip


def test_the_engine_confines_an_example(probe, runner):
    outcome = runner.one(probe, "probe_engine.py")
    assert outcome.failure is None, outcome.failure
    assert confined("".join(cell.output for cell in outcome.result.cells)) == []


def test_a_downloaded_notebooks_kernel_is_confined(probe, tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(probe)])
    with serving([]) as server:
        box, config = kernel_folder(tmp_path / "notebook")
        client = NotebookClient(nb, timeout=60, kernel_name=server.kernel, config=config,
                                resources={"metadata": {"path": str(box)}})  # fmt: skip
        asyncio.run(client.async_execute())
    assert confined("".join(output.get("text", "") for output in nb.cells[0].outputs)) == []


def test_a_plain_script_is_confined(probe, tmp_path):
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    script = scripts / "probe.py"
    script.write_text(textwrap.dedent(probe))
    failures, _ = forked((1234, [script]))
    assert failures == []
    assert confined(Path(f"{script}.1234.log").read_text()) == []


def test_each_lane_confines_with_the_same_function():
    # the worker, the kernels' server and the plain driver each enter the sandbox through sandbox.confine
    sources = {
        "worker": Path(sandbox.__file__).with_name("worker.py").read_text(),
        "kernels": (Path(__file__).parent / "forked_kernels.py").read_text(),
        "plain": (Path(__file__).parent / "test_plain_run.py").read_text(),
    }
    assert {name: "sandbox.confine(" in text for name, text in sources.items()} == dict.fromkeys(sources, True)
    assert not any("sandbox.enter(" in text for text in sources.values())
