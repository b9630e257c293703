"""Recordings: record → shard → merge → publish, on CPU (the CUDA execution itself cannot run here).

Recordings that claim a GPU are test data made in these tests, named "FIXTURE GPU (test data)"
so that nobody mistakes them for a machine's: only `record` on a GPU writes real ones.
"""

from __future__ import annotations

import json
import logging
import shutil
from html import unescape
from pathlib import Path

import markdown
import pytest
import yaml
from helpers import build_site
from mkdocs.exceptions import Abort, PluginError

from mkdocs_examples.cli import main
from mkdocs_examples.recordings import matrix, shards
from mkdocs_examples.recordings.store import Published, Recording, RecordingError, current, dumps, read, read_folder
from mkdocs_examples.render.page import render_example
from mkdocs_examples.render.provenance import Sources
from mkdocs_examples.results import CellResult, Result
from mkdocs_examples.source.cells import Example, parse_cells

FIXTURE = Path(__file__).parent / "site"
FAKE_GPU = {"device": "cuda", "gpu": "FIXTURE GPU (test data)", "cuda": "13.0", "torch": "2.13.0+cu130",
            "python": "3.11.7"}  # fmt: skip
SITE = {"torch": "2.13.0+cpu", "python": "3.11.7"}

SOURCE = """\
import torch
# %% same
print("same everywhere")
# %% where
print("cpu")
# %% gpu tags=["requires-cuda"]
print(torch.ones(1, device="cuda"))
"""
EXAMPLE = Example("d/gpu.py", Path("/x/d/gpu.py"), SOURCE, parse_cells(SOURCE))
BUILT = Result(
    env={"device": "cpu", "torch": "2.13.0+cpu", "python": "3.11.7"},
    cells=(CellResult(0), CellResult(1, "same everywhere\n"), CellResult(2, "cpu\n"),
           CellResult(3, skipped="requires-cuda")),
)  # fmt: skip
GPU_CELLS = (CellResult(0), CellResult(1, "same everywhere\n"), CellResult(2, "cuda:0\n"),
             CellResult(3, "tensor([1.], device='cuda:0')\n"))  # fmt: skip


def fixture_recording(example: Example = EXAMPLE, env: dict | None = None) -> Recording:
    return Recording(example.path, example.keys, "2026-11-22T10:00:00Z", env or FAKE_GPU, 1.5, GPU_CELLS,
                     tuple(c.name for c in example.cells))  # fmt: skip


def page(example=EXAMPLE, recording=None, lang="en", site=SITE) -> str:
    """The example on a page, and the page's block on where its outputs come from."""
    published = (Published.holding("cuda", recording, example, site),)
    sources = Sources()
    md = render_example(example, BUILT, None, lang=lang, limit=1000, published=published, sources=sources)
    return md + sources.block(lang)


def html(text: str) -> str:
    return markdown.markdown(text, extensions=["admonition", "pymdownx.superfences", "pymdownx.highlight",
                                               "pymdownx.tabbed"])  # fmt: skip


# --- shards ---------------------------------------------------------------------


def test_shards_are_balanced_by_recorded_seconds_longest_first():
    seconds = {"a.py": 30, "b.py": 20, "c.py": 20, "d.py": 10, "e.py": 10, "f.py": 10}
    planned = shards.plan(sorted(seconds), seconds, 2, {})
    assert planned == {"1/2": ["a.py", "d.py", "e.py"], "2/2": ["b.py", "c.py", "f.py"]}
    loads = [sum(seconds[p] for p in paths) for paths in planned.values()]
    assert loads == [50, 50]
    assert shards.plan(sorted(seconds, reverse=True), seconds, 2, {}) == planned  # order of input: same split


def test_every_example_lands_in_exactly_one_shard():
    paths = [f"x{i}.py" for i in range(23)]
    seconds = {p: float(i % 7) + 0.5 for i, p in enumerate(paths)}
    planned = shards.plan(paths, seconds, 4, {})
    assert sorted(p for chosen in planned.values() for p in chosen) == sorted(paths)
    loads = [sum(seconds[p] for p in chosen) for chosen in planned.values()]
    assert max(loads) - min(loads) <= max(seconds.values())  # no shard more than one example behind


def test_unknown_examples_weigh_the_median_and_pins_are_kept():
    seconds = {"a.py": 1, "b.py": 2, "c.py": 3}
    planned = shards.plan(["a.py", "b.py", "c.py", "new.py"], seconds, 2, {})
    assert planned == {"1/2": ["a.py", "c.py"], "2/2": ["b.py", "new.py"]}  # new.py weighs 2 s
    pinned = shards.plan(["a.py", "b.py", "c.py", "dp.py"], seconds, 2, {"c.py": 2, "dp.py": "gpu-2x"})
    assert "c.py" in pinned["2/2"] and pinned["gpu-2x"] == ["dp.py"]
    assert shards.select("gpu-2x", ["a.py", "dp.py"], seconds, {"dp.py": "gpu-2x"}) == ["dp.py"]
    assert shards.plan(["a.py"], {}, 1, {}) == {"1/1": ["a.py"]}  # nothing recorded yet


@pytest.mark.parametrize("spec", ["0/2", "3/2", "1/", "a b", "/2"])
def test_a_bad_shard_is_refused(spec):
    with pytest.raises(shards.ShardError):
        shards.parse(spec)


def test_a_bad_pin_is_refused():
    with pytest.raises(shards.ShardError, match=r"pin of a\.py"):
        shards.plan(["a.py"], {}, 2, {"a.py": 3})


# --- the file format --------------------------------------------------------------


def test_a_recording_is_diffable_json_that_reads_back(tmp_path):
    recording = fixture_recording()
    text = dumps(recording)
    data = json.loads(text)
    assert data["schema"] == 2 and data["example"] == "d/gpu.py" and data["env"]["gpu"].startswith("FIXTURE")
    assert data["cells"][3]["output"] == ["tensor([1.], device='cuda:0')\n"]  # lines: a refresh diffs by line
    assert data["cells"][3]["name"] == "gpu"
    file = tmp_path / "d" / "gpu.json"
    file.parent.mkdir()
    file.write_text(text)
    assert read(file, tmp_path) == recording


@pytest.mark.parametrize(
    "change",
    [lambda d: d.pop("keys"), lambda d: d.update(schema=3), lambda d: d["cells"][0].update(output="x"),
     lambda d: d.update(env={"a": 1}), lambda d: d.update(seconds="1"), lambda d: d.update(example="other.py"),
     lambda d: d.update(example="../x.py"), lambda d: d.update(recorded="<b>2026</b>"),
     lambda d: d["cells"][0].update(images=["x) <script>alert(1)</script>"])],
)  # fmt: skip
def test_a_broken_recording_is_refused_naming_its_file(tmp_path, change):
    data = json.loads(dumps(fixture_recording()))
    change(data)
    file = tmp_path / "d" / "gpu.json"
    file.parent.mkdir()
    file.write_text(json.dumps(data))
    with pytest.raises(RecordingError, match=str(file)):
        read_folder(tmp_path)


def test_a_recording_that_is_a_link_is_refused_naming_it_without_reading_where_it_points(tmp_path):
    elsewhere = tmp_path / "elsewhere.json"  # a recording as good as any, but outside its folder
    elsewhere.write_text(dumps(fixture_recording()))
    file = tmp_path / "cuda" / "d" / "gpu.json"
    file.parent.mkdir(parents=True)
    file.symlink_to(elsewhere)
    with pytest.raises(RecordingError) as refused:
        read_folder(tmp_path / "cuda")
    assert str(refused.value).startswith(f"{file}: not a readable recording (is a symbolic link (to {elsewhere})")


# --- rendering ---------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_cuda_cell_shows_its_recorded_output_with_the_gpus_provenance(lang):
    md = page(recording=fixture_recording(), lang=lang)
    assert "tensor([1.], device=&#x27;cuda:0&#x27;)" in html(md) or "tensor([1.], device='cuda:0')" in md
    provenance = {
        "en": "torch 2.13.0 · FIXTURE GPU (test data): printed on FIXTURE GPU (test data) with PyTorch 2.13.0+cu130 "
              "and CUDA 13.0 (Python 3.11.7), recorded on 2026-11-22.",
        "zh": "torch 2.13.0 · FIXTURE GPU (test data)：录制于 2026-11-22，在 FIXTURE GPU (test data) 上用 PyTorch "
              "2.13.0+cu130、CUDA 13.0（Python 3.11.7）实际运行得到。",
    }  # fmt: skip
    assert provenance[lang] in unescape(md)  # each character Markdown would read is a character reference
    assert "runs only on a CUDA GPU" not in md and "此单元只能在" not in md


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_outputs_that_differ_by_device_are_tabs_and_identical_ones_show_once(lang):
    md = page(recording=fixture_recording(), lang=lang)
    assert md.count('=== "CPU"') == 1 and md.count('=== "CUDA"') == 1  # the `where` cell
    assert md.count("same everywhere") == 2  # its code and one output
    rendered = html(md)
    assert rendered.count('class="tabbed-set') == 1
    cpu, cuda = rendered.split('class="tabbed-content"')[1:3]
    assert "cpu" in cpu and ">torch 2.13.0</small>" in cpu  # each tab's output with its label
    assert "cuda:0" in cuda and "torch 2.13.0 · FIXTURE GPU &#40;test data&#41;</small>" in cuda


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_stale_recording_is_never_shown(lang):
    edited = Example.from_source("d/gpu.py", EXAMPLE.file, SOURCE.replace('print("cpu")', 'print("CPU")'))
    md = page(edited, fixture_recording(), lang=lang)
    assert "cuda:0" not in md and "FIXTURE GPU (test data) ·" not in md and "===" not in md
    note = "has changed since it last ran on FIXTURE GPU" if lang == "en" else "上运行之后（2026-11-22）又改过了"
    assert note in md


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_without_a_recording_the_cell_says_it_was_never_recorded(lang):
    md = page(recording=None, lang=lang)
    assert ("has not been run on a GPU yet" if lang == "en" else "还没有在 GPU 上运行过") in md


def test_a_recording_made_with_another_torch_says_so():
    md = unescape(page(recording=fixture_recording(env={**FAKE_GPU, "torch": "2.11.0+cu130"})))
    assert ">torch 2.11.0 · FIXTURE GPU (test data)</small>" in md  # its label
    block = md[md.index('<div class="mx-sources"'):]  # the page's block: each environment in words, once
    assert "torch 2.13.0: printed on a CPU with PyTorch 2.13.0+cpu (Python 3.11.7), when this site was built." \
        in block  # fmt: skip
    assert "torch 2.11.0 · FIXTURE GPU (test data): printed on FIXTURE GPU (test data) with PyTorch 2.11.0+cu130 " \
        "and CUDA 13.0 (Python 3.11.7), recorded on 2026-11-22." in block  # fmt: skip


# --- record → shard → merge → publish, end to end on CPU --------------------------------


@pytest.fixture
def site(tmp_path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "site")
    return tmp_path / "site"


def configure(site: Path, **options) -> None:
    config = yaml.safe_load((site / "mkdocs.yml").read_text())
    config["plugins"][1]["examples"].update(options)
    config["markdown_extensions"] += [{"pymdownx.tabbed": {"alternate_style": True}}, "pymdownx.details"]
    (site / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True))


def test_record_two_shards_merge_and_publish_end_to_end(site, capsys, caplog):
    config = str(site / "mkdocs.yml")
    for k in (1, 2):
        assert main(["record", "--shard", f"{k}/2", "--out", str(site / f"s{k}"), "-f", config]) == 0
    one, two = read_folder(site / "s1"), read_folder(site / "s2")
    assert sorted([*one, *two]) == ["one.py", "two.py"] and not set(one) & set(two)
    recorded = {**one, **two}
    assert recorded["two.py"].cells[1].output == "answer: 42\n" and recorded["two.py"].device == "cpu"
    assert {"python", "os", "engine", "torch", "device"} <= set(recorded["one.py"].env)

    # a CPU's recordings are refused for a CUDA folder: nothing is ever published as CUDA unless a GPU made it
    assert main(["merge", str(site / "s1"), str(site / "s2"), "--out", str(site / "rec/cuda"), "-f", config]) == 1
    assert "two.py in" in capsys.readouterr().err and not (site / "rec/cuda").exists()
    out = str(site / "rec/cpu")
    assert main(["merge", str(site / "s1"), str(site / "s2"), "--device", "cpu", "--out", out, "-f", config]) == 0
    assert sorted(read_folder(site / "rec/cpu")) == ["one.py", "two.py"]

    configure(site, recordings="rec", publish=["cpu"])
    with caplog.at_level(logging.INFO):
        build_site(site)
    html_en = (site / "site/index.html").read_text()
    assert html_en.count("answer: 42") == 1 and "tabbed-set" not in html_en  # the same output: shown once
    assert "out of date" not in caplog.text

    (site / "examples/two.py").write_text((site / "examples/two.py").read_text() + "\n# a comment changes no key\n")
    caplog.clear()
    with caplog.at_level(logging.INFO):
        build_site(site)
    assert "ran other code than now" not in caplog.text
    (site / "examples/two.py").write_text((site / "examples/two.py").read_text().replace("answer:", "the answer:"))
    caplog.clear()
    with caplog.at_level(logging.INFO):
        build_site(site)
    assert "recorded cell(s) of 1 recording(s) ran other code than now" in caplog.text
    assert "two.py cells 1 (recorded on cpu" in caplog.text


def test_a_cpu_cannot_record_into_a_cuda_folder(site, capsys):
    assert main(["record", "--out", str(site / "recordings/cuda"), "-f", str(site / "mkdocs.yml")]) == 2
    assert "this machine records on cpu" in capsys.readouterr().err and not (site / "recordings").exists()


def test_merge_refuses_a_gap_or_a_duplicate_and_writes_nothing(site, capsys):
    config = str(site / "mkdocs.yml")
    assert main(["record", str(site / "examples/one.py"), "--out", str(site / "a"), "-f", config]) == 0
    shutil.copytree(site / "a", site / "b")
    out = site / "rec/cpu"
    assert main(["merge", str(site / "a"), "--device", "cpu", "--out", str(out), "-f", config]) == 1
    assert "two.py has no recording in any shard" in capsys.readouterr().err
    assert main(["merge", str(site / "a"), str(site / "b"), "--device", "cpu", "--out", str(out), "-f", config]) == 1
    assert "one.py is recorded twice" in capsys.readouterr().err
    assert not out.exists()
    assert main(["merge", str(site / "a"), "--device", "cpu", "--allow-missing", "--out", str(out), "-f", config]) == 0
    assert sorted(read_folder(out)) == ["one.py"]
    first = (out / "one.json").read_text()
    assert main(["record", str(site / "examples/one.py"), "--out", str(site / "c"), "-f", config]) == 0
    assert main(["merge", str(site / "c"), "--device", "cpu", "--allow-missing", "--out", str(out), "-f", config]) == 0
    assert (out / "one.json").read_text() == first  # the same outputs: the committed file, date and all, stays
    assert "0 new or changed" in capsys.readouterr().out


def test_the_shards_command_prints_the_workflow_matrix(site, capsys):
    configure(site, record={"shards": 3, "runner": "big-gpu", "pins": {"two.py": "gpu-2x"}})
    assert main(["shards", "-f", str(site / "mkdocs.yml")]) == 0
    matrix = json.loads(capsys.readouterr().out)
    assert matrix == {"include": [{"shard": f"{k}/3", "runner": "big-gpu"} for k in (1, 2, 3)]
                      + [{"shard": "gpu-2x", "runner": "gpu-2x"}]}  # fmt: skip


def test_the_versions_command_prints_a_job_per_release_and_shard(site, capsys):
    configure(site, versions={"python": "3.11", "shards": 2, "releases": {"2.10": "3.10-3.14", "2.4": "3.8-3.12"}})
    assert main(["versions", "-f", str(site / "mkdocs.yml")]) == 0
    matrix = json.loads(capsys.readouterr().out)
    assert matrix == {"include": [{"torch": t, "python": "3.11", "shard": f"{k}/2"}
                                  for t in ("2.4", "2.10") for k in (1, 2)]}  # fmt: skip  (oldest first, by number)


@pytest.mark.parametrize(
    ("releases", "error"),
    [
        ({2.1: "3.10-3.14"}, "2.1 is not a minor release written as a string: quote it"),  # YAML's reading of 2.10
        ({"2.4": "3.12"}, "2.4: '3.12'; expected the Pythons it has wheels for"),
        ({"2.4": "3.12-3.8"}, "expected the Pythons it has wheels for"),
        ({"2.0": "3.8-3.10"}, "torch 2.0 has wheels for Python 3.8-3.10 only, and the engine needs Python 3.11"),
    ],
)
def test_the_versions_command_names_what_is_wrong_in_the_list(site, capsys, releases, error):
    config = yaml.safe_load((site / "mkdocs.yml").read_text())
    config["plugins"][1]["examples"]["versions"] = {"releases": releases}
    (site / "mkdocs.yml").write_text(yaml.safe_dump(config))
    assert main(["versions", "-f", str(site / "mkdocs.yml")]) == 2
    assert error in capsys.readouterr().err


def test_each_release_is_recorded_under_the_builds_python_or_the_nearest_it_has_wheels_for():
    assert matrix.python_for("2.4", "3.8-3.12", "3.11") == "3.11"  # the build's: only torch differs
    assert matrix.python_for("2.4", "3.8-3.12", "3.13") == "3.12"  # an old release lacks the build's Python
    assert matrix.python_for("2.15", "3.12-3.15", "3.11") == "3.12"  # a new one dropped it
    assert matrix.python_for("x", "3.10-3.14", "3.12") == "3.12"
    with pytest.raises(matrix.MatrixError, match="leave the release out"):
        matrix.python_for("2.0", "3.8-3.10", "3.9")  # never older than the engine runs on, whatever the build's


def test_a_version_matrix_shard_records_the_pinned_examples_too(site, capsys):
    # the GPU plan sends pinned examples to their own runner; on the version matrix's CPU runners every
    # example is in a numbered shard
    configure(site, record={"shards": 2, "pins": {"one.py": "gpu-2x", "two.py": "gpu-2x"}})
    config = str(site / "mkdocs.yml")
    assert main(["record", "--shard", "1/1", "--out", str(site / "g"), "-f", config]) == 0
    assert read_folder(site / "g") == {}
    assert main(["record", "--matrix", "versions", "--shard", "1/1", "--out", str(site / "v"), "-f", config]) == 0
    assert sorted(read_folder(site / "v")) == ["one.py", "two.py"]


def fixture_site_with_gpu_page(site: Path) -> Example:
    """The fixture site plus a page embedding EXAMPLE, and a FIXTURE GPU recording of it."""
    (site / "examples/d").mkdir()
    (site / "examples/d/gpu.py").write_text(SOURCE)
    config = site / "mkdocs.yml"  # this example imports torch itself: seconds on a busy machine
    config.write_text(config.read_text().replace("      timeout: 2 ", "      timeout: 60 ", 1))
    for lang in ("en", "zh"):
        (site / f"docs/{lang}/gpu.md").write_text("# GPU\n\n/// example | d/gpu.py\n///\n")
    example = Example.from_source("d/gpu.py", site / "examples/d/gpu.py", SOURCE)
    (site / "recordings/cuda/d").mkdir(parents=True)
    (site / "recordings/cuda/d/gpu.json").write_text(dumps(fixture_recording(example)))
    return example


def test_the_site_shows_a_fixture_gpu_recording_in_both_languages(site):
    fixture_site_with_gpu_page(site)
    configure(site)
    build_site(site)
    for prefix in ("", "zh/"):
        text = (site / f"site/{prefix}gpu/index.html").read_text()
        assert text.count('class="tabbed-set') == 1 and "FIXTURE GPU (test data)" in unescape(text)
        assert "tensor([1.], device='cuda:0')" in text


def test_a_recording_from_another_device_in_the_cuda_folder_stops_the_build(site, caplog):
    example = fixture_site_with_gpu_page(site)
    recording = fixture_recording(example, env={**FAKE_GPU, "device": "cpu"})
    (site / "recordings/cuda/d/gpu.json").write_text(dumps(recording))
    configure(site)
    with pytest.raises((PluginError, Abort)):
        build_site(site)
    assert "gpu.json was recorded on cpu: only what a cuda machine recorded is published as cuda" in caplog.text


def test_a_folder_of_recordings_that_links_elsewhere_stops_the_build_publishing_nothing(site, tmp_path, caplog):
    fixture_site_with_gpu_page(site)
    configure(site)
    (site / "recordings" / "cuda").rename(tmp_path / "cuda")  # recordings from anywhere, made by anyone
    (site / "recordings" / "cuda").symlink_to(tmp_path / "cuda", target_is_directory=True)
    with pytest.raises((PluginError, Abort)):
        build_site(site)
    said = "1 symbolic link(s) among the recordings, whose targets the site would publish: recordings/cuda -> "
    assert said in caplog.text and "Put the file itself there instead of a link to it" in caplog.text
    assert not (site / "site").exists()


def test_publishing_needs_the_tabbed_extension(site, caplog):
    fixture_site_with_gpu_page(site)
    with pytest.raises((PluginError, Abort)):
        build_site(site)
    assert "missing: pymdownx.tabbed, pymdownx.details" in caplog.text


def test_the_notebook_download_carries_recorded_gpu_outputs_and_says_so():
    import nbformat

    from mkdocs_examples.publish.notebooks import dumps as notebook_json
    from mkdocs_examples.publish.notebooks import notebook

    nb = nbformat.reads(notebook_json(notebook(EXAMPLE, BUILT, fixture_recording())), as_version=4)
    nbformat.validate(nb)
    gpu = next(c for c in nb.cells if c.cell_type == "code" and c.id == "gpu")
    assert gpu.outputs[0]["text"] == "tensor([1.], device='cuda:0')\n"
    where = nb.cells[nb.cells.index(gpu) + 1]
    assert where.cell_type == "markdown" and "printed on FIXTURE GPU (test data) with PyTorch 2.13.0+cu130 and " \
        "CUDA 13.0 (Python 3.11.7), recorded on 2026-11-22" in where.source  # fmt: skip
    assert nb.metadata["mkdocs_examples_recorded"]["gpu"].startswith("FIXTURE")
    cpu = next(c for c in nb.cells if c.cell_type == "code" and c.id == "where")
    assert cpu.outputs[0]["text"] == "cpu\n"  # this build's output where it has one
    stale = Example.from_source("d/gpu.py", EXAMPLE.file, SOURCE.replace('print("cpu")', 'print("CPU")'))
    held = current(fixture_recording(), stale)  # the cells before the edited one hold, the rest do not
    assert held is not None and [c.cell for c in held.cells] == [0, 1]
    assert "cuda:0" not in notebook_json(notebook(stale, BUILT, held))


def test_a_machine_that_cannot_be_probed_records_nothing(monkeypatch):
    from mkdocs_examples.recordings import store

    monkeypatch.setattr(store, "_PROBE", "import sys; sys.exit('ModuleNotFoundError: no torch here')")
    with pytest.raises(RecordingError, match="no torch here"):
        store.environment("cpu")
    monkeypatch.setattr(store, "_PROBE", "print('{\"torch\": \"2.13.0+cpu\"}')")
    assert store.environment("cpu")["torch"] == "2.13.0+cpu"
    with pytest.raises(RecordingError, match="sees no CUDA GPU"):
        store.environment("cuda")


def test_a_process_probes_its_torch_once_per_set_of_visible_gpus(monkeypatch, tmp_path):
    from mkdocs_examples.recordings import store

    log = tmp_path / "probes"
    monkeypatch.setattr(store, "_PROBE", f"open({str(log)!r}, 'a').write('x'); print('{{\"torch\": \"2.13.0+cpu\"}}')")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    assert store.environment("cpu")["torch"] == store.environment("cpu")["torch"] == "2.13.0+cpu"
    assert log.read_text() == "x"  # a record command's shards and folders: one probe, importing torch once
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")  # `record --device cpu`: another answer, probed again
    store.environment("cpu")
    assert log.read_text() == "xx"


def test_the_page_and_the_notebook_describe_the_gpu_machine_with_the_same_words():
    import html
    import re

    from mkdocs_examples.publish.notebooks import notebook

    recording = fixture_recording()
    line = re.search(r"(printed on [^<]*?recorded on .*?)\.</li>", page(recording=recording))
    assert line
    assert html.unescape(line[1]) == "printed on FIXTURE GPU (test data) with PyTorch 2.13.0+cu130 and CUDA 13.0 " \
        "(Python 3.11.7), recorded on 2026-11-22"  # fmt: skip
    notes = [c["source"] for c in notebook(EXAMPLE, BUILT, recording)["cells"] if c["cell_type"] == "markdown"]
    assert f"*This cell's output was {html.unescape(line[1])}: the machine that built the site has no GPU.*" in notes


def test_the_notes_of_a_chinese_notebook_are_in_chinese():
    from mkdocs_examples.publish.notebooks import notebook

    recording = fixture_recording()
    cells = notebook(EXAMPLE, BUILT, recording, lang="zh")["cells"]
    notes = [c["source"] for c in cells if c["cell_type"] == "markdown"]
    zh = "*这个单元格的输出录制于 2026-11-22，在 FIXTURE GPU (test data) 上用 PyTorch 2.13.0+cu130、CUDA 13.0" \
        "（Python 3.11.7）"  # fmt: skip
    assert any(note.startswith(zh) for note in notes), notes
    assert not any("printed on" in note for note in notes), notes


# --- environments: one folder each, with a manifest ------------------------------------------

CPU_2_14 = {"device": "cpu", "torch": "2.14.1+cu130", "python": "3.11.7"}  # test data


def test_a_folder_of_recordings_is_checked_against_its_manifest(tmp_path):
    from mkdocs_examples.recordings.store import load_published, manifest_of, write_folder, write_manifest

    made = fixture_recording(env=CPU_2_14)
    folder = tmp_path / "cpu-torch2.14.1-py3.11"
    write_folder(folder, [made])
    with pytest.raises(RecordingError, match=r"environment\.json: missing.*merge"):
        load_published(tmp_path, [folder.name], {})
    manifest = manifest_of([made])
    assert manifest == {"schema": 1, "id": "cpu-torch2.14.1-py3.11", **CPU_2_14}
    write_manifest(folder, {**manifest, "id": "cpu-torch2.13.0-py3.11"})
    with pytest.raises(RecordingError, match=r"names the environment cpu-torch2\.13\.0-py3\.11, but its folder is"):
        load_published(tmp_path, [folder.name], {})
    write_manifest(folder, {**manifest, "extra": "x"})
    with pytest.raises(RecordingError, match="not a readable manifest"):
        load_published(tmp_path, [folder.name], {})
    write_manifest(folder, manifest)
    assert load_published(tmp_path, [folder.name], {})[folder.name][made.example] == made
    other = fixture_recording(env={**CPU_2_14, "torch": "2.14.0+cpu"})
    write_folder(folder, [other])  # a recording of torch 2.14.0 among those of 2.14.1
    with pytest.raises(RecordingError, match=r"recorded with torch '2\.14\.0\+cpu', but .*environment\.json says"):
        load_published(tmp_path, [folder.name], {})
    with pytest.raises(RecordingError, match="come from 2 environments"):
        manifest_of([made, fixture_recording(env={**CPU_2_14, "python": "3.12.1"})])


def test_merge_into_names_the_folder_after_the_recordings_environment(site, capsys):
    from mkdocs_examples.recordings.store import read_manifest, write_folder

    source = (site / "examples/one.py").read_text()
    example = Example.from_source("one.py", site / "examples/one.py", source)
    made = Recording(example.path, example.keys, "2026-11-22T10:00:00Z", CPU_2_14, 1.0, (CellResult(0, "x\n"),))
    write_folder(site / "shard", [made])
    config = ["-f", str(site / "mkdocs.yml")]
    assert main(["merge", str(site / "shard"), "--device", "cpu", "--out", str(site / "rec/wrong"),
                 "--allow-missing", *config]) == 1  # fmt: skip
    assert "they go into a folder of that name, not wrong" in capsys.readouterr().err
    assert main(["merge", str(site / "shard"), "--device", "cpu", "--into", str(site / "rec"),
                 "--allow-missing", *config]) == 0  # fmt: skip
    folder = site / "rec/cpu-torch2.14.1-py3.11"
    assert read_manifest(folder)["torch"] == "2.14.1+cu130"
    assert read_folder(folder)["one.py"].cells == made.cells


def test_record_keeps_a_failed_check_only_when_asked(site, capsys):
    from mkdocs_examples.recordings.store import MANIFEST

    (site / "examples/three.py").write_text(
        '# %% shown\nprint("shown")\n\n# %% check tags=["remove-cell"]\nassert 1 == 2, "does not hold here"\n'
    )
    config = ["-f", str(site / "mkdocs.yml")]
    assert main(["record", str(site / "examples/three.py"), "--out", str(site / "plain"), *config]) == 1
    assert not (site / "plain/three.json").exists()  # a failed run is no recording, unless asked for
    assert main(["record", str(site / "examples/three.py"), "--keep-failed", "--out", str(site / "kept"), *config]) == 0
    assert "kept, its check fails here: three.py (exception in cell 1)" in capsys.readouterr().out
    made = read(site / "kept/three.json", site / "kept")
    assert made.failed is not None and (made.failed.cell, made.failed.line) == (1, 5)
    assert made.failed.message == "AssertionError: does not hold here"
    assert made.cells[0].output == "shown\n"
    assert json.loads((site / "kept" / MANIFEST).read_text())["id"] == made.env["device"] + "-torch" + \
        made.env["torch"].split("+")[0] + "-py3.11"  # fmt: skip


def test_a_machine_records_only_into_the_folder_of_its_own_environment(site, capsys):
    out = site / "recordings/cpu-torch9.9.9-py3.11"
    assert main(["record", "--out", str(out), "-f", str(site / "mkdocs.yml")]) == 2
    assert "this machine records the environment cpu-torch" in capsys.readouterr().err and not out.exists()


def test_a_shard_records_the_same_examples_on_the_cpu_as_on_the_gpu(site):
    from mkdocs_examples.recordings.store import manifest_of, write_folder

    def made(path: str, env: dict, seconds: float) -> Recording:
        return Recording(path, "0" * 64, "2026-11-22T10:00:00Z", env, seconds, (CellResult(0),))

    write_folder(site / "recordings/cuda", [made("one.py", FAKE_GPU, 10), made("two.py", FAKE_GPU, 1)])
    cpu = [made("one.py", CPU_2_14, 1), made("two.py", CPU_2_14, 10)]  # the other way round on a CPU
    write_folder(site / "recordings/cpu-torch2.14.1-py3.11", cpu, manifest=manifest_of(cpu))
    config = ["-f", str(site / "mkdocs.yml")]
    assert main(["record", "--device", "cpu", "--shard", "1/2", "--out", str(site / "s1"), *config]) == 0
    assert sorted(read_folder(site / "s1")) == ["one.py"]  # the longest on the GPU: shard 1's, on both devices


def test_a_recording_read_again_after_an_edit_is_the_edited_one(tmp_path):
    """read() keeps what it parsed for `serve`'s rebuilds, by the file's bytes: an edit is never missed."""
    file = tmp_path / "d" / "gpu.json"
    file.parent.mkdir()
    file.write_text(dumps(fixture_recording()))
    assert read(file, tmp_path).cells[2].output == "cuda:0\n"
    file.write_text(file.read_text().replace("cuda:0", "cuda:1", 1))  # the same size, maybe the same time
    assert read(file, tmp_path).cells[2].output == "cuda:1\n"
