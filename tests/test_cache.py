from __future__ import annotations

import json
import shutil
from dataclasses import replace

from mkdocs_examples.environment import detect_device
from mkdocs_examples.execute.cache import Cache, cache_key, fingerprint
from mkdocs_examples.results import CellResult, Options, Result
from mkdocs_examples.source.cells import Example, parse_cells

RESULT = Result((CellResult(0, "hi\n", seconds=0.01),), {"python": "3.11"}, None, 0.1, {"dist:numpy": "2.4.6"})


def example(source="print(1)\n", path="a.py"):
    return Example(path, __import__("pathlib").Path("/x") / path, source, parse_cells(source))


def test_key_changes_with_everything_that_changes_output():
    base = fingerprint(Options(), ["numpy"])
    key = cache_key(example(), base)
    assert key == cache_key(example(), fingerprint(Options(), ["numpy"]))
    others = [
        cache_key(example("print(2)\n"), base),
        cache_key(example(path="b.py"), base),
        cache_key(example(), fingerprint(Options(device="cuda"), ["numpy"])),
        cache_key(example(), fingerprint(Options(seed=1), ["numpy"])),
        cache_key(example(), {**base, "python": "3.12.0"}),
        cache_key(example(), {**base, "packages": {**base["packages"], "torch": "2.14.0"}}),
        cache_key(example(), {**base, "engine": "0.2.0+abc"}),
    ]
    assert len({key, *others}) == len(others) + 1
    assert set(base["packages"]) == {"numpy", "torch"}
    assert base["packages"]["torch"].startswith("2.13.0")


def test_put_then_get_and_misses(tmp_path):
    cache = Cache(tmp_path, tmp_path / "examples")
    assert cache.get("ab" * 32) is None
    cache.put("ab" * 32, RESULT, {})
    assert cache.get("ab" * 32) == (RESULT, {})
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == ["ab" * 32 + ".json"]


def test_corrupt_partial_or_foreign_entries_are_misses(tmp_path):
    cache = Cache(tmp_path, tmp_path / "examples")
    key = "cd" * 32
    cache.put(key, RESULT, {})
    file = next(tmp_path.rglob("*.json"))
    text = file.read_text()
    for broken in (text[: len(text) // 2], "", "[]", json.dumps({"key": "other", "result": RESULT.to_json()})):
        file.write_text(broken)
        assert cache.get(key) is None
    cache.put(key, RESULT, {})  # and a miss can be rewritten
    assert cache.get(key) == (RESULT, {})


def test_device_setting_wins_and_auto_reads_the_wheel_and_the_gpu_nodes(monkeypatch):
    from mkdocs_examples import environment

    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    gpu = {"/dev/nvidiactl"}
    monkeypatch.setattr(environment.os.path, "exists", lambda path: path in gpu)
    for wheel, found in (("2.13.0+cpu", "cpu"), ("2.13.0+cu130", "cuda"), ("not installed", "cpu")):
        monkeypatch.setattr(environment, "package_version", lambda name, wheel=wheel: wheel)
        assert detect_device("auto") == found, wheel
        assert detect_device("cpu") == "cpu" and detect_device("cuda") == "cuda"
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")  # a CUDA wheel, a GPU, and none of it visible
    assert detect_device() == "cpu"
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    gpu.clear()  # a CUDA wheel on a machine without a GPU
    assert detect_device() == "cpu"


def test_options_are_part_of_the_fingerprint():
    assert fingerprint(replace(Options(), threads=2), [])["options"]["threads"] == 2


def test_entries_of_the_wrong_shape_are_misses(tmp_path):
    cache = Cache(tmp_path, tmp_path / "examples")
    key = "ef" * 32
    good = RESULT.to_json()
    wrong = [
        {**good, "cells": {}},
        {**good, "cells": [{**good["cells"][0], "output": None}]},
        {**good, "cells": [{**good["cells"][0], "truncated": True}]},
        {**good, "extra": 1},
        {k: v for k, v in good.items() if k != "env"},
        {**good, "failure": {"kind": "bogus"}},
        {**good, "env": {"python": 3}},
        {**good, "seconds": "0.1"},
    ]
    for result in wrong:
        cache._file(key).parent.mkdir(parents=True, exist_ok=True)
        cache._file(key).write_text(json.dumps({"key": key, "result": result}))
        assert cache.get(key) is None, result


def test_an_entry_is_a_miss_when_what_it_imported_changed(tmp_path):
    examples = tmp_path / "examples"
    examples.mkdir()
    (examples / "helper.py").write_text("X = 1\n")
    import hashlib

    digest = hashlib.sha256(b"X = 1\n").hexdigest()
    cache = Cache(tmp_path / "cache", examples)
    cache.put("aa" * 32, replace(RESULT, depends={"file:helper.py": digest, "dist:numpy": "2.4.6"}), {})
    assert cache.get("aa" * 32) is not None
    (examples / "helper.py").write_text("X = 2\n")
    assert cache.get("aa" * 32) is None
    cache.put("bb" * 32, replace(RESULT, depends={"dist:numpy": "1.0.0"}), {})
    assert cache.get("bb" * 32) is None


def test_a_cache_that_cannot_be_written_is_skipped(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    cache = Cache(tmp_path / "file" / "cache", tmp_path)
    cache.put("cc" * 32, RESULT, {})  # no exception
    assert cache.unwritable == "Not a directory"
    assert cache.get("cc" * 32) is None


def test_a_gpu_under_wsl2_is_found_by_its_device_node(monkeypatch):
    from mkdocs_examples import environment

    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setattr(environment, "package_version", lambda name: "2.13.0+cu130")
    monkeypatch.setattr(environment.os.path, "exists", lambda path: path == "/dev/dxg")  # WSL2: no /dev/nvidia*
    assert detect_device() == "cuda"
    monkeypatch.setattr(environment.os.path, "exists", lambda path: False)
    assert detect_device() == "cpu"


def test_a_module_added_to_the_execution_code_changes_the_key(tmp_path, monkeypatch):
    from mkdocs_examples.execute import cache

    package = tmp_path / "mkdocs_examples"
    shutil.copytree(cache.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(cache, "PACKAGE", package)
    before = cache.engine_digest()
    (package / "execute" / "child" / "new_helper.py").write_text("LIMIT = 1\n")
    assert cache.engine_digest() != before
    (package / "execute" / "child" / "new_helper.py").unlink()
    assert cache.engine_digest() == before
    (package / "render" / "page.py").write_text("# rendering is not execution\n")
    assert cache.engine_digest() == before


def test_the_cache_line_a_build_ends_with_counts_its_entries_and_bytes(tmp_path, monkeypatch):
    from mkdocs_examples.execute.engine import Engine

    monkeypatch.chdir(tmp_path)
    engine = Engine(tmp_path, tmp_path / ".cache" / "examples", options=Options(), preload=[], jobs=1)
    try:
        assert engine.cache_usage() == ("example cache: 0 entries, 0 bytes in .cache/examples "
                                        "(`python -m mkdocs_examples cache list`, `cache prune`)")  # fmt: skip
        engine.cache.put("ab" * 32, RESULT, {})
        count, total = engine.cache.usage()
        assert count == 1 and total == next(tmp_path.rglob("*.json")).stat().st_size > 0
        assert f"example cache: 1 entry, {total} bytes in .cache/examples" in engine.cache_usage()
    finally:
        engine.close()
