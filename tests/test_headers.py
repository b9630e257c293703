"""Inductor's precompiled headers: the worker builds them once, in a process of its own, and keeps them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

PREPARE = textwrap.dedent("""\
    import json, sys, time
    from pathlib import Path
    import torch
    from mkdocs_examples.execute.child import headers
    store, scratch, shared = map(Path, sys.argv[1:])
    start = time.perf_counter()
    found = headers.prepare(store, scratch, shared)
    print(json.dumps({"found": [str(p) for p in found], "seconds": time.perf_counter() - start}))
""")


def prepare(tmp_path, env: dict | None = None) -> dict:
    folders = [tmp_path / name for name in ("store", "scratch", "shared")]
    for folder in folders[1:]:
        folder.mkdir(exist_ok=True)
    done = subprocess.run([sys.executable, "-c", PREPARE, *map(str, folders)], capture_output=True, text=True,
                          check=True, env=env)  # fmt: skip
    return json.loads(done.stdout)


@pytest.mark.slow  # compiles torch's header for real: most of a minute of CPU, beside `make test`
def test_the_worker_builds_the_headers_once_and_keeps_them_for_this_torch_and_compiler(tmp_path):
    first = prepare(tmp_path)
    names = sorted(path.rsplit("/", 1)[1] for path in first["found"])
    assert len(names) == 2 and names[0] + ".gch" == names[1], names  # cpp_prefix.h's, compiled
    kept = [p for p in (tmp_path / "store").iterdir()]
    assert len(kept) == 1 and kept[0].name.startswith("torch-")
    gch = kept[0] / names[1]
    assert gch.stat().st_size > 1 << 20
    assert sorted(p.name for p in (tmp_path / "shared").iterdir()) == names  # what examples' binds go over
    assert all(p.stat().st_size == 0 for p in (tmp_path / "shared").iterdir())
    assert list((tmp_path / "scratch").iterdir()) == []  # its work folder is gone
    built = gch.stat().st_mtime_ns
    second = prepare(tmp_path)
    assert second["found"] == first["found"] and gch.stat().st_mtime_ns == built  # not built again


def test_where_the_headers_cannot_be_built_they_are_not_tried_again_and_none_are_shown(tmp_path):
    from mkdocs_examples.execute.child import headers

    env = dict(os.environ, CXX=str(tmp_path / "no-such-compiler"))
    first = prepare(tmp_path, env)
    assert first["found"] == []
    kept = list((tmp_path / "store").iterdir())
    assert len(kept) == 1 and [p.name for p in kept[0].iterdir()] == [headers.TORCH]  # tried once: no header
    assert list((tmp_path / "shared").iterdir()) == [] and list((tmp_path / "scratch").iterdir()) == []
    tried = kept[0].stat().st_mtime_ns
    assert prepare(tmp_path, env)["found"] == [] and kept[0].stat().st_mtime_ns == tried


def test_a_compile_that_hangs_is_killed_and_counts_as_failed(tmp_path, monkeypatch):
    import time

    from mkdocs_examples.execute.child import headers

    monkeypatch.setattr(headers, "BUILDING", 0.5)
    monkeypatch.setattr(headers, "_compile", lambda work: time.sleep(60))
    (tmp_path / "work").mkdir()
    start = time.monotonic()
    build = headers._start(tmp_path / "store" / "torch-x", tmp_path / "work", "")
    headers.wait(build)
    headers.finish(build, None)
    assert time.monotonic() - start < 10
    assert [p.name for p in (tmp_path / "store" / "torch-x").iterdir()] == [headers.TORCH]
    assert not (tmp_path / "work").exists()


def test_a_torch_reached_by_another_path_has_a_folder_of_its_own(tmp_path):
    # inductor names a header by its compile command, which names torch's folder as imported: a
    # virtualenv reached through a link looks for another header than the same one by its real path
    from mkdocs_examples.execute.child import headers

    assert headers._key("2.13.0", "/venv/torch") == headers._key("2.13.0", "/venv/torch")
    assert headers._key("2.13.0", "/venv/torch") != headers._key("2.13.0", "/link/torch")
    assert headers._key("2.13.0", "/venv/torch") != headers._key("2.14.1", "/venv/torch")


COMPILES = """\
import getpass, json, os, tempfile
import torch
from torch._inductor import codecache
folder = os.path.join(tempfile.gettempdir(), f"torchinductor_{getpass.getuser()}", "precompiled_headers")
there = set(os.listdir(folder)) if os.path.isdir(folder) else set()
asked = []
write = codecache.write
def noted(content, extension, extra="", **more):
    if extension == "h":
        asked.append(codecache.get_hash(content.strip(), extra) + ".h.gch")
    return write(content, extension, extra, **more)
codecache.write = noted
torch.compile(lambda x: torch.sin(x) ** 2 + torch.cos(x) ** 2)(torch.randn(64))
print(json.dumps([asked, [name in there for name in asked]]))
"""


@pytest.mark.slow  # compiles for real, and the worker builds the headers where this machine has none yet
@pytest.mark.skipif(sys.platform != "linux", reason="the store is used with mount namespaces only")
def test_an_examples_first_compile_finds_the_header_the_worker_built(tmp_path):
    from mkdocs_examples.execute.child import headers
    from mkdocs_examples.execute.engine import Engine, describe
    from mkdocs_examples.results import Options

    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "compiles.py").write_text(COMPILES)
    engine = Engine(tmp_path / "examples", None, options=Options(), preload=["torch", "torch._dynamo"], jobs=1,
                    timeout=300, headers=headers.default_store())  # fmt: skip
    try:
        outcome = engine.run([engine.load("compiles.py")])["compiles.py"]
        namespaced = "namespaces" not in engine.pool.sandbox["missing"]
    finally:
        engine.close()
    assert outcome.failure is None, describe(outcome)
    asked, found = json.loads(outcome.result.cells[0].output)
    assert asked, "the compile asked for no precompiled header"
    if namespaced:  # else each example's TMPDIR is its own, empty: it builds its own
        assert found == [True] * len(asked), asked


@pytest.mark.slow  # builds the headers for real, in a store of its own: most of a minute of CPU
@pytest.mark.skipif(sys.platform != "linux", reason="the store is used with mount namespaces only")
def test_examples_run_while_the_headers_are_built_and_one_that_compiles_waits_for_them(tmp_path):
    from mkdocs_examples.execute.engine import Engine, describe
    from mkdocs_examples.results import Options

    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "compiles.py").write_text(COMPILES)
    (tmp_path / "examples" / "plain.py").write_text("import time\nprint(time.time())\n")
    store = tmp_path / "store"
    engine = Engine(tmp_path / "examples", None, options=Options(), preload=["torch", "torch._dynamo"], jobs=2,
                    timeout=300, headers=store)  # fmt: skip
    try:
        outcomes = engine.run([engine.load("compiles.py"), engine.load("plain.py")])
        namespaced = "namespaces" not in engine.pool.sandbox["missing"]
    finally:
        engine.close()
    for outcome in outcomes.values():
        assert outcome.failure is None, describe(outcome)
    if not namespaced:  # no store: each example's TMPDIR is its own
        return
    [built] = [folder for folder in store.iterdir() if folder.name.startswith("torch-")]
    assert any(p.suffix == ".gch" for p in built.iterdir())
    assert float(outcomes["plain.py"].result.cells[0].output) < built.stat().st_mtime  # ran during the build
    asked, found = json.loads(outcomes["compiles.py"].result.cells[0].output)
    assert asked and found == [True] * len(asked), asked  # started once the headers were there
