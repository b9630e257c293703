"""The torch picker's data (publish/picker.py): which environment a pick shows, and the JSON the picker reads.

Every recording here is test data made in these tests ("FIXTURE GPU (test data)"); the picker
itself, in Chromium on the real site, is tried in test_browser.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import search_queries

from mkdocs_examples.publish import picker
from mkdocs_examples.publish.picker import (
    BUILD,
    Environment,
    alongside,
    choices,
    environments,
    example_data,
    releases,
    site_data,
)
from mkdocs_examples.recordings.store import Failed, Published, Recording, current
from mkdocs_examples.render.page import render_example
from mkdocs_examples.results import CellResult, Result
from mkdocs_examples.source.cells import Example, parse_cells

BUILD_ENV = {"device": "cpu", "torch": "2.13.0+cpu", "python": "3.11.7"}
CPU_2_14 = {"device": "cpu", "torch": "2.14.1+cu130", "python": "3.11.7"}  # test data
CPU_2_9 = {"device": "cpu", "torch": "2.9.1+cpu", "python": "3.11.7"}  # test data
GPU_2_11 = {"device": "cuda", "gpu": "FIXTURE GPU (test data)", "torch": "2.11.0+cu130", "python": "3.12.3"}
SITE = [
    Environment(BUILD, BUILD_ENV),
    Environment("cpu-torch2.14.1-py3.11", CPU_2_14, "2026-11-23"),
    Environment("cpu-torch2.9.1-py3.11", CPU_2_9, "2026-11-23"),
    Environment("cuda-torch2.11.0-py3.12", GPU_2_11, "2026-11-22"),
]

SOURCE = """\
# %% shown
print("same")
# %% changed
print("changed")
# %% checks tags=["remove-cell"]
assert True
# %% quiet tags=["remove-output"]
print("never shown")
# %% gpu tags=["requires-cuda"]
print("cuda only")
"""
EXAMPLE = Example("d/x.py", Path("/x/d/x.py"), SOURCE, parse_cells(SOURCE))


def cells(changed: str, gpu: CellResult | None = None) -> tuple[CellResult, ...]:
    return (CellResult(0, "same\n"), CellResult(1, changed), CellResult(2), CellResult(3, "never shown\n"),
            gpu or CellResult(4, skipped="requires-cuda"))  # fmt: skip


def recording(env: dict[str, str], output: str, *, gpu: CellResult | None = None, **extra) -> Recording:
    values = {"failed": None, "keys": EXAMPLE.keys, **extra}
    return Recording(EXAMPLE.path, values["keys"], "2026-11-23T10:00:00Z", env, 1.0, cells(output, gpu),
                     tuple(c.name for c in EXAMPLE.cells), values["failed"])  # fmt: skip


BUILT = Result(env=BUILD_ENV, cells=cells("changed\n"))


def test_the_picker_lists_every_release_once_newest_first():
    assert releases(SITE) == ["2.14.1", "2.13.0", "2.11.0", "2.9.1"]
    with_cuda = [*SITE, Environment("cuda-torch2.14.1-py3.11", {**CPU_2_14, "device": "cuda"})]
    assert releases(with_cuda) == ["2.14.1", "2.13.0", "2.11.0", "2.9.1"]  # 2.14.1 once, for two devices


CPU_2_11 = {"device": "cpu", "torch": "2.11.0+cu130", "python": "3.11.7"}  # test data
TWIN_2_11 = {**CPU_2_11, "python": "3.12.3"}  # the GPU machine's CPU run (test data)
WITH_TWINS = [*SITE, Environment("cpu-torch2.11.0-py3.11", CPU_2_11), Environment("cpu-torch2.11.0-py3.12", TWIN_2_11)]


def test_each_environment_is_a_choice_named_by_its_release_and_a_device_or_python_not_the_builds():
    offered = [(c["key"], c["release"], c["device"], c["name"]["en"]) for c in choices(WITH_TWINS)]
    assert offered == [
        ("cpu-torch2.14.1-py3.11", "2.14.1", "cpu", "2.14.1 · CUDA build, no GPU"),  # PyPI's wheel, on a CPU
        (BUILD, "2.13.0", "cpu", "2.13.0"),
        ("cpu-torch2.11.0-py3.11", "2.11.0", "cpu", "2.11.0 · CUDA build, no GPU"),  # three runs of 2.11.0: each a
        ("cpu-torch2.11.0-py3.12", "2.11.0", "cpu", "2.11.0 · Python 3.12 · CUDA build, no GPU"),  # choice, named by
        ("cuda-torch2.11.0-py3.12", "2.11.0", "cuda", "2.11.0 · FIXTURE GPU (test data) · Python 3.12"),  # what
        ("cpu-torch2.9.1-py3.11", "2.9.1", "cpu", "2.9.1"),  # differs from the build's; a CPU build, as the build's
    ]
    assert choices(WITH_TWINS)[0]["name"]["zh"] == "2.14.1 · CUDA 版本，无 GPU"  # in the reader's language


def test_the_releases_of_choices_sort_by_version_not_as_text():
    tens = [Environment(f"cpu-torch{v}", {**CPU_2_9, "torch": v}) for v in ("2.10.0", "2.4.1", "2.11.0", "2.9.1")]
    assert [c["release"] for c in choices(tens)] == ["2.11.0", "2.10.0", "2.9.1", "2.4.1"]


@pytest.mark.parametrize(
    ("chosen", "device", "shows"),
    [
        (BUILD, "cpu", BUILD),  # the build's own: the page as built
        (BUILD, "cuda", None),  # no CUDA run of 2.13.0: a CUDA cell keeps its output, and says so
        ("cpu-torch2.14.1-py3.11", "cuda", None),
        ("cpu-torch2.11.0-py3.11", "cpu", "cpu-torch2.11.0-py3.11"),
        ("cpu-torch2.11.0-py3.11", "cuda", "cuda-torch2.11.0-py3.12"),  # a CUDA-only cell: the GPU's run of 2.11.0
        ("cuda-torch2.11.0-py3.12", "cuda", "cuda-torch2.11.0-py3.12"),
        ("cuda-torch2.11.0-py3.12", "cpu", "cpu-torch2.11.0-py3.12"),  # a CPU tab: the GPU machine's own CPU run
        ("cpu-torch2.9.1-py3.11", "mps", None),  # no run of that device at all
    ],
)
def test_each_choice_shows_its_own_run_on_its_device_and_that_releases_on_another(chosen, device, shows):
    assert alongside(next(e for e in WITH_TWINS if e.name == chosen), device, WITH_TWINS) == shows


def test_a_gpus_choice_shows_its_run_in_every_cell_and_a_cpus_choice_only_in_its_devices():
    made = {c["key"]: c for c in choices(WITH_TWINS)}
    assert made["cuda-torch2.11.0-py3.12"]["all"] == "cuda-torch2.11.0-py3.12"
    assert made["cpu-torch2.11.0-py3.11"]["all"] is None and made[BUILD]["all"] is None


def test_the_sites_file_names_each_environment_and_what_each_choice_shows():
    data = json.loads(json.dumps(site_data(SITE, limit=1000)))  # what the picker reads
    assert data["build"] == "2.13.0"
    assert [c["release"] for c in data["choices"]] == ["2.14.1", "2.13.0", "2.11.0", "2.9.1"]
    shown = {c["key"]: c["shows"] for c in data["choices"]}
    assert shown["cpu-torch2.14.1-py3.11"] == {"cpu": "cpu-torch2.14.1-py3.11", "cuda": None}
    assert shown[BUILD] == {"cpu": BUILD, "cuda": None}
    assert shown["cuda-torch2.11.0-py3.12"] == {"cpu": None, "cuda": "cuda-torch2.11.0-py3.12"}
    gpu = data["environments"]["cuda-torch2.11.0-py3.12"]
    assert gpu["label"]["en"] == "torch 2.11.0 · FIXTURE GPU (test data) · Python 3.12" and gpu["device"] == "cuda"
    assert gpu["printed"] == {"en": "Printed on FIXTURE GPU (test data) with PyTorch 2.11.0+cu130 (Python 3.12.3)",
                              "zh": "在 FIXTURE GPU (test data) 上用 PyTorch 2.11.0+cu130（Python 3.12.3）实际运行得到"}
    assert data["environments"][BUILD]["label"] == {"en": "torch 2.13.0", "zh": "torch 2.13.0"}
    assert data["texts"]["en"]["cut"] == "… {n} more characters cut (this page shows at most 1,000 per cell)"
    assert data["texts"]["zh"]["picker.label"] and set(data["texts"]["zh"]) == set(data["texts"]["en"])


def test_a_releases_cuda_wheel_run_on_a_cpu_says_so_in_its_sentence():
    """PyPI's wheels of a release are CUDA builds (``2.4.1+cu121``): their output says "built with CUDA: 12.1", and
    the sentence that names the environment says why, though it ran on a CPU."""
    data = site_data([Environment("cpu-torch2.4.1-py3.11", {**CPU_2_9, "torch": "2.4.1+cu121"})], limit=1000)
    printed = data["environments"]["cpu-torch2.4.1-py3.11"]["printed"]
    assert printed["en"] == ("Printed on a CPU with PyTorch 2.4.1+cu121, a build for CUDA 12.1 run without a GPU "
                             "(Python 3.11.7)")  # fmt: skip
    assert "为 CUDA 12.1 构建的版本" in printed["zh"]
    assert site_data(SITE, limit=1000)["environments"]["cpu-torch2.9.1-py3.11"]["printed"]["en"] == \
        "Printed on a CPU with PyTorch 2.9.1+cpu (Python 3.11.7)"  # a CPU build: nothing to say


def test_environments_come_from_the_build_and_each_folder_with_recordings():
    found = {"cpu-torch2.14.1-py3.11": {"d/x.py": recording(CPU_2_14, "new\n")}, "empty": {}}
    named = environments(BUILD_ENV, found)
    assert [e.name for e in named] == [BUILD, "cpu-torch2.14.1-py3.11"]
    # no date: a folder's recordings may come from several days, and a label saying one would be wrong for others
    assert named[1].release == "2.14.1" and named[1].date is None


def test_an_examples_file_holds_each_shown_cells_output_in_each_environment_once():
    recorded = {
        "cpu-torch2.14.1-py3.11": recording(CPU_2_14, "changed in 2.14\n"),
        "cuda-torch2.11.0-py3.12": recording(GPU_2_11, "changed\n", gpu=CellResult(4, "cuda only\n")),
    }
    data = json.loads(json.dumps(example_data(EXAMPLE, BUILT, recorded, limit=1000)))
    assert set(data["cells"]) == {"0", "1", "4"}  # not the hidden cell, nor the one whose output is removed
    outputs = [o["output"] for o in data["outputs"]]
    assert sorted(outputs) == ["changed", "changed in 2.14", "cuda only", "same"]  # each output once
    everywhere = data["cells"]["0"]
    assert len(everywhere) == 3 and len(set(everywhere.values())) == 1
    changed = data["cells"]["1"]
    assert outputs[changed["cpu-torch2.14.1-py3.11"]] == "changed in 2.14"
    assert changed[BUILD] == changed["cuda-torch2.11.0-py3.12"]
    assert data["cells"]["4"] == {"cuda-torch2.11.0-py3.12": outputs.index("cuda only")}  # the build skipped it


def test_a_stale_recording_has_no_output_in_the_file_and_a_cell_whose_check_failed_there_has_its_own():
    stale = recording(CPU_2_14, "old source\n", keys=("0" * 64,) * len(EXAMPLE.cells))
    failed = recording(CPU_2_9, "stops short\n", failed=Failed(1, 4, "exception", "AssertionError"))
    assert current(stale, EXAMPLE) is None  # no cell of it ran the code as it is now: a build publishes nothing of it
    held = {name: h for name, r in {"stale": stale, "failed": failed}.items() if (h := current(r, EXAMPLE))}
    data = example_data(EXAMPLE, BUILT, held, limit=1000)
    assert "stale" not in data["cells"]["0"] and "stale" not in data["cells"]["1"]
    assert "old source" not in json.dumps(data)
    # what the release printed where the cell's own check fails, and that it fails, for the picker to say in words
    assert data["outputs"][data["cells"]["1"]["failed"]]["output"] == "stops short"
    # it raised (an assert of its own) where it stands: no traceback recorded, so the error's line says it
    assert data["claims"] == {"failed": {"1": {"line": 4, "holds": None, "claim": None, "raised": "AssertionError"}}}
    # the run stopped there: the cells after it have no output, and their labels say why
    assert data["failed"] == {"failed": {"cell": 1, "line": 4, "message": "AssertionError"}}


HOLDS = """\
# %% shown
print("loads")
# %% shown-checks tags=["remove-cell"] holds=">=2.6" claim="It loads with no `warning`"
assert False
# %% after
print("after")
"""


def test_a_hidden_check_that_fails_outside_its_declared_range_is_a_claim_of_the_cell_it_checks_in_words():
    example = Example("d/h.py", Path("/x/d/h.py"), HOLDS, parse_cells(HOLDS))
    cells = (CellResult(0, "loads, with a warning\n"), CellResult(1), CellResult(2, "after\n"))
    old = Recording(example.path, example.keys, "2026-11-23T10:00:00Z", {**CPU_2_9, "torch": "2.4.1+cu121"}, 1.0,
                    cells, tuple(c.name for c in example.cells), None,
                    declared=(Failed(1, 3, "assertion", "AssertionError"),))  # fmt: skip
    built = Result(env=BUILD_ENV, cells=(CellResult(0, "loads\n"), CellResult(1), CellResult(2, "after\n")))
    data = example_data(example, built, {"old": current(old, example)}, limit=1000)
    assert data["outputs"][data["cells"]["0"]["old"]]["output"] == "loads, with a warning"
    claim = data["claims"]["old"].pop("0")
    assert data["claims"] == {"old": {}}  # one, said of the cell it checks
    assert claim == {"line": 3, "raised": None,  # a hidden check's: the cell printed all it does
                     "holds": {"en": "torch 2.6 and later", "zh": "torch 2.6 及以上"},
                     # in each language (no translation beside this example: the English)
                     "claim": {"en": "It loads with no `warning`", "zh": "It loads with no `warning`"}}
    assert data["failed"] == {} and "old" in data["cells"]["2"]  # a declared failure stops nothing


def test_outputs_are_cut_as_pages_cut_them_and_kept_as_text():
    payload = '<img src=x onerror="alert(1)">'
    long = recording(CPU_2_14, payload + "y" * 5000)
    data = example_data(EXAMPLE, BUILT, {"cpu-torch2.14.1-py3.11": long}, limit=100)
    output = data["outputs"][data["cells"]["1"]["cpu-torch2.14.1-py3.11"]]
    assert output["output"] == (payload + "y" * 5000)[:100] and output["truncated"] == len(payload) + 5000 - 100


def test_a_timing_is_left_out_and_its_label_stays_as_built():
    source = '# %% timing tags=["varies"]\nprint("0.1 s")\n'
    timed = Example("d/t.py", Path("/x/d/t.py"), source, parse_cells(source))
    built = Result(env=BUILD_ENV, cells=(CellResult(0, "0.1 s\n"),))
    made = Recording(timed.path, timed.keys, "2026-11-23T10:00:00Z", CPU_2_14, 1.0, (CellResult(0, "0.3 s\n"),))
    assert example_data(timed, built, {"cpu-torch2.14.1-py3.11": made}, limit=100)["cells"] == {}
    md = render_example(timed, built, None, lang="en", limit=100, published=(Published("cpu", made),))
    assert ">torch 2.13.0</small>" in md and "data-mx-" not in md  # the picker leaves it alone


def test_a_figure_that_is_not_base64_is_left_out():
    figure = CellResult(1, "", images=("iVBORw0KGgo=", 'x" onerror="alert(1)'))
    built = Result(env=BUILD_ENV, cells=(CellResult(0, "same\n"), figure))
    data = example_data(EXAMPLE, built, {}, limit=100)
    assert data["outputs"][data["cells"]["1"][BUILD]]["images"] == ["iVBORw0KGgo="]


def test_the_files_are_written_under_outputs(tmp_path):
    found = {"cpu-torch2.14.1-py3.11": {"d/x.py": recording(CPU_2_14, "changed in 2.14\n")}}
    picker.write(tmp_path, BUILT.env, found, [(EXAMPLE, BUILT)], limit=1000)
    site = json.loads((tmp_path / "outputs" / "environments.json").read_text())
    example = json.loads((tmp_path / "outputs" / "examples" / "d" / "x.json").read_text())
    assert site["build"] == "2.13.0" and example["example"] == "d/x.py"
    assert "cpu-torch2.14.1-py3.11" in example["cells"]["1"]


# --- the picker in Chromium, on the fixture site: a cell recorded in the picked release, and one that is not ---


@pytest.fixture(scope="module")
def picked_site(tmp_path_factory) -> Path:
    """The fixture site with a recording of one.py, and none of two.py, in a torch 2.14.1 on the CPU (test data)."""
    import shutil

    from helpers import build_site

    from mkdocs_examples.recordings.store import dumps, manifest_of, write_manifest

    root = shutil.copytree(Path(__file__).parent / "site", tmp_path_factory.mktemp("picker") / "site")
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - pymdownx.superfences\n", "  - pymdownx.superfences\n"
                      "  - pymdownx.tabbed:\n      alternate_style: true\n  - pymdownx.details\n"))  # fmt: skip
    one = Example.from_source("one.py", root / "examples" / "one.py", (root / "examples" / "one.py").read_text())
    made = Recording("one.py", one.keys, "2026-11-23T10:00:00Z", CPU_2_14, 0.1,
                     (CellResult(0, "[0, 2, 4] as torch 2.14.1 printed it (test data)\n"),))  # fmt: skip
    folder = root / "recordings" / "cpu-torch2.14.1-py3.11"
    folder.mkdir(parents=True)
    (folder / "one.json").write_text(dumps(made))
    write_manifest(folder, manifest_of([made]))
    build_site(root)
    return root / "site"


def test_in_the_browser_a_cell_recorded_there_shows_it_and_one_not_recorded_says_so(picked_site, page):
    from playwright.sync_api import expect
    from test_browser import SHOWN_OUTPUT as shown

    with search_queries.served(picked_site) as url:
        page.goto(f"{url}/")
        one, two = page.locator('[data-mx-example="one.py"]'), page.locator('[data-mx-example="two.py"]')
        built = two.inner_text()
        assert built.startswith("CPU · Python 3.") and one.inner_text() == built  # the fixture runs no torch
        page.get_by_role("combobox", name="Outputs of torch").select_option("cpu-torch2.14.1-py3.11")
        # named as the page names it (its Python: the build ran no torch, so the site names none of its own); test
        # data no trusted key signs: said so
        expect(one).to_have_text("torch 2.14.1 · CPU · Python 3.11 · CUDA build, no GPU · unverified")
        assert one.get_attribute("title") == ("Printed on a CPU with PyTorch 2.14.1+cu130, a build for "
                                                 "CUDA 13.0 run without a GPU (Python 3.11.7)")
        assert one.evaluate(shown) == "[0, 2, 4] as torch 2.14.1 printed it (test data)"
        expect(two).to_have_text(f"{built} (no output of this cell recorded with torch 2.14.1 · CPU · Python 3.11 · "
                                 "CUDA build, no GPU)")
        assert two.evaluate(shown) == "answer: 42"  # the build's, under its own label


def test_a_page_with_outputs_the_picker_changes_keeps_its_room_before_the_articles_title():
    page = ('<html><div class="md-content"><article class="md-content__inner md-typeset"><h1 id="t">T</h1>'
            '<p><small class="mx-provenance" data-mx-env="build">torch</small></p></article></div></html>')  # fmt: skip
    assert picker.with_room(page) == page.replace('<h1 id="t">', picker.ROOM + '<h1 id="t">')
    assert picker.with_room(page.replace(' data-mx-env="build"', "")) == page.replace(' data-mx-env="build"', "")
    assert picker.with_room(page.replace("<h1", "<h2")) == page.replace("<h1", "<h2")  # no title: no room
    outside = page.replace('<div class="md-content">', "<h1>not the article's</h1>" + '<div class="md-content">')
    assert picker.with_room(outside).count(picker.ROOM) == 1
    assert picker.with_room(outside).index(picker.ROOM) > picker.with_room(outside).index("md-content__inner")


def test_one_environment_has_one_name_beside_outputs_in_notes_sources_the_picker_and_the_error_index():
    """Each place a reader meets an environment names it alike: the label beside its output, a folded note's
    title, the page's list of sources, the picker's choice (after "Outputs of torch") and its relabelled outputs,
    and, by its device, the error index's link to its output."""
    import re
    from html import unescape

    from mkdocs_examples.publish import error_index
    from mkdocs_examples.render.provenance import Sources
    from mkdocs_examples.source.blocks import find_blocks

    twins = {e.name: e for e in WITH_TWINS if e.name != BUILD}
    published = tuple(Published.holding(e.device, recording(e.env, f"printed by {e.name}\n",
                                                            gpu=CellResult(4, f"cuda of {e.name}\n")),
                                        EXAMPLE, {"torch": BUILD_ENV["torch"], "python": BUILD_ENV["python"]},
                                        folder=e.name) for e in twins.values())  # fmt: skip
    sources = Sources(site=BUILD_ENV)
    md = unescape(render_example(EXAMPLE, BUILT, None, lang="en", limit=1000, published=published, sources=sources)
                  + sources.block("en"))  # fmt: skip
    data = site_data(WITH_TWINS, limit=1000)
    names: dict[str, set[str]] = {}
    for key, label in re.findall(r'<small class="mx-provenance" data-mx-env="([^"]+)"[^>]*>([^<]+)</small>', md):
        names.setdefault(key, set()).add(label)  # beside an output
    for title, body in re.findall(r'\?\?\? note mx-other "(.+?) prints?"\n\n((?:    .*\n|\n)+)', md):
        key = re.search(r'data-mx-envs="([^" ]+)"', body)[1]  # a note of one environment: its title
        names.setdefault(key, set()).add(title)
    for key, line in re.findall(r'<li data-mx-source="([^"]+)">([^:]+):', md):
        names.setdefault(key, set()).add(line)  # the page's list of sources
    for choice in data["choices"]:
        names.setdefault(choice["key"], set()).add("torch " + choice["name"]["en"])
    for key, environment in data["environments"].items():
        names.setdefault(key, set()).add(environment["label"]["en"])  # what the picker relabels an output with
    assert set(names) == {*twins, BUILD} and all(len(n) == 1 for n in names.values()), names
    assert len({n for (n,) in names.values()}) == len(names)  # and no two environments alike
    # the error index marks a link to a GPU's output with that GPU, as the GPU's name says it
    source = "# %% boom\nraise RuntimeError('on the GPU')\n"
    boom = Example("b.py", Path("/x/b.py"), source, parse_cells(source))
    traceback = 'Traceback (most recent call last):\n  File "b.py", line 2\nRuntimeError: on the GPU\n'
    results = {"b.py": [Result(env=BUILD_ENV, cells=(CellResult(0, skipped="requires-cuda"),)),
                        Result(env=GPU_2_11, cells=(CellResult(0, traceback=traceback),))]}  # fmt: skip
    (entry,) = error_index.collect({"p.md": ("P", find_blocks("/// example | b.py\n///\n"))}, {"b.py": boom}, results)
    (gpu,) = names["cuda-torch2.11.0-py3.12"]
    assert f" · {entry.shown[0].recorded} · " in gpu
