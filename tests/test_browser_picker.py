"""The torch picker on the real site, in Chromium: what a reader who picks another release sees in each cell.

Each pick shows that release's output in the cell's place, highlighted and with its copy button, under a sentence
that says what differs where the page's check fails there; the build's own output stays one click away, folded,
and no output is shown twice. What a release printed is read here from its recording's file, never from the
picker's data.
"""

from __future__ import annotations

import json
import re

import pytest
import yaml
from helpers import NO_GPU, ROOT
from test_browser import SHOWN_OUTPUT

OLDEST = "cpu-torch2.4.1-py3.11"  # a CPU recording of the oldest release, whose outputs differ most
GPU = "cuda-torch2.11.0-py3.12"

# A cell's label, the output shown before it, and the folded notes after it (or after its set of device tabs)
CELL = """label => {
    const outputs = node => [...node.querySelectorAll("code")].map(code => code.textContent.replace(/\\n$/, ""));
    let next = (label.closest(".tabbed-set") || label.closest("p")).nextElementSibling;
    const notes = [];
    for (; next && next.matches("details"); next = next.nextElementSibling)
        notes.push({title: next.querySelector("summary").textContent, outputs: outputs(next)});
    return {notes};
}"""


# The environments whose outputs the folded notes after a label's output hold
NOTE_ENVS = """label => {
    const envs = [];
    let next = (label.closest(".tabbed-set") || label.closest("p")).nextElementSibling;
    for (; next && next.matches("details"); next = next.nextElementSibling)
        envs.push(...next.querySelector("[data-mx-envs]").dataset.mxEnvs.split(" "));
    return envs;
}"""


def _printed(folder: str, example: str, cell: int) -> str:
    """What a recording says a cell printed last: its traceback, where it raised, or else its output."""
    data = json.loads((ROOT / "recordings" / folder / f"{example.removesuffix('.py')}.json").read_text())
    found = next(c for c in data["cells"] if c["cell"] == cell)
    return "".join(found["traceback"] or found["output"]).rstrip("\n")


def _pick(page, key: str) -> None:
    from playwright.sync_api import expect

    name = "输出来自 torch" if page.evaluate("document.documentElement.lang").startswith("zh") else "Outputs of torch"
    picker = page.get_by_role("combobox", name=name)
    expect(picker.locator(f'option[value="{key}"]')).to_be_attached()  # the options come with environments.json
    picker.select_option(key)
    expect(page.locator("html[data-mx-torch]")).to_have_count(1)  # applied


def test_a_picked_output_takes_the_cells_place_and_the_builds_stays_folded_never_twice(page, base_url):
    page.goto(f"{base_url}/autograd/no-grad-and-eval/")
    labels = page.locator(".mx-provenance[data-mx-env]")
    built = [labels.nth(i).evaluate(SHOWN_OUTPUT) for i in range(labels.count())]
    _pick(page, OLDEST)
    changed = 0
    for i in range(labels.count()):
        label = labels.nth(i)
        shown, cell = label.evaluate(SHOWN_OUTPUT), label.evaluate(CELL)
        example, index = label.get_attribute("data-mx-example"), int(label.get_attribute("data-mx-cell"))
        assert shown == _printed(OLDEST, example, index)  # that release's own output, as recorded
        folded = [o for note in cell["notes"] for o in note["outputs"]]
        assert shown not in folded  # shown once
        if shown != built[i]:
            changed += 1
            assert label.text_content() == "torch 2.4.1" + NO_GPU["en"]  # PyPI's wheel, run without a GPU
            assert built[i] in folded  # the build's own, one click away, under its own name
            holder = next(n for n in cell["notes"] if built[i] in n["outputs"])
            assert holder["title"] == "torch 2.13.0 prints"
    assert changed, "torch 2.4.1 prints this page's outputs as the build does: the test would check nothing"


def test_a_picked_output_keeps_its_highlighting_and_copy_button(page, base_url):
    from playwright.sync_api import expect

    page.goto(f"{base_url}/autograd/no-grad-and-eval/")
    labels = page.locator(".mx-provenance[data-mx-env]")
    built = [labels.nth(i).evaluate(SHOWN_OUTPUT) for i in range(labels.count())]
    _pick(page, OLDEST)
    swapped = [i for i in range(labels.count()) if labels.nth(i).evaluate(SHOWN_OUTPUT) != built[i]]
    assert swapped
    for i in swapped:
        block = labels.nth(i).locator("xpath=ancestor::p[1]/preceding-sibling::*[1]")
        kind = block.get_attribute("class").split()
        assert "highlight" in kind and ("language-text" in kind or "language-pytb" in kind), kind
        if "language-pytb" in kind:  # a traceback, coloured by the highlighter as the build's are
            assert block.locator("code span.gr").count() > 0
        block.scroll_into_view_if_needed()
        # Material's copy button, which it adds to a block as the block comes on screen
        expect(block.locator('.md-code__button[data-md-type="copy"]')).to_have_count(1)


def _cell(example: str, name: str) -> int:
    """The index of the cell ``name`` of ``example``, as its recordings number it."""
    data = json.loads((ROOT / "recordings" / OLDEST / f"{example.removesuffix('.py')}.json").read_text())
    return next(c["cell"] for c in data["cells"] if c["name"] == name)


def _declared(example: str, name: str, lang: str) -> tuple[str, str]:
    """What the header of the cell ``name`` of ``example`` declares: the release from which its check holds
    (``holds=">=2.6"``) and its claim in ``lang`` as a reader reads it (its code spans' backticks left out)."""
    source = (ROOT / "examples" / example).read_text()
    header = re.search(rf"^# %% {name} .*$", source, re.M)[0]
    since, claim = re.search(r'holds=">=(\d+\.\d+)"', header)[1], re.search(r'claim="([^"]+)"', header)[1]
    if lang != "en":
        claim = yaml.safe_load((ROOT / "examples" / example.replace(".py", f".{lang}.yml")).read_text())[claim]
    return since, claim.replace("`", "")


# The sentence right above the output a label names, where the picker wrote one, and the lines beside the claim
# (render/page.py: holds_note) a reader sees
SENTENCE = """label => {
    let node = label.closest("p").previousElementSibling;
    while (node && (node.hidden || node.matches(".highlight, p:has(> img)"))) node = node.previousElementSibling;
    const holds = [...label.closest("article").querySelectorAll(".mx-holds")].filter(p => !p.hidden);
    return {sentence: node && node.matches(".mx-differs") ? node.textContent : null,
            holds: holds.map(p => p.textContent)};
}"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_where_a_check_fails_on_the_picked_release_its_output_is_shown_under_a_sentence_that_says_so(page, base_url,
                                                                                                    lang):
    """modules/state-dict at torch 2.4.1: loading a whole model raises nothing there (its `weights_only` default is
    still False), which is what a reader on 2.4 needs to see; the cell's `holds=` says from which release on the
    page's claim holds, in the page's language."""
    example, name = "modules/state_dict.py", "whole-model"
    index, (since, words) = _cell(example, name), _declared(example, name, lang)
    page.goto(f"{base_url}/{'' if lang == 'en' else 'zh/'}modules/state-dict/")
    label = page.locator(f'.mx-provenance[data-mx-example="{example}"][data-mx-cell="{index}"]')
    built = label.evaluate(SHOWN_OUTPUT)
    claim = label.evaluate(SENTENCE)
    assert claim["sentence"] is None and claim["holds"]  # as built: the line beside the claim, no sentence
    _pick(page, OLDEST)
    shown = label.evaluate(SHOWN_OUTPUT)
    assert shown == _printed(OLDEST, example, index) and shown != built  # what 2.4.1 printed, in the cell's place
    assert label.text_content() == "torch 2.4.1" + NO_GPU[lang]
    said = {"en": f"{words}: true on torch {since} and later, not on torch 2.4.1, which printed:",
            "zh": f"{words}：适用于 torch {since} 及以上，在 torch 2.4.1 上并非如此，该版本实际打印的是："}[lang]
    claim = label.evaluate(SENTENCE)
    assert claim["sentence"] == said
    assert len(claim["holds"]) < len(label.evaluate(SENTENCE.replace("!p.hidden", "true"))["holds"])  # said once
    assert built in [o for note in label.evaluate(CELL)["notes"] for o in note["outputs"]]  # folded, one click away
    _pick(page, "build")
    assert label.evaluate(SENTENCE)["sentence"] is None and label.evaluate(SHOWN_OUTPUT) == built


def test_where_the_picked_release_fails_a_declared_cell_the_sentence_names_the_error_and_later_cells_ran(
        page, base_url):  # fmt: skip
    """devices/gpu-memory at torch 2.4.1: the cell that shows a warning raised there (no warning was caught), a
    failure its holds= declares: the sentence names the claim, its range and the error the recording names. A
    declared failure does not stop the example, so the cells after it show what torch 2.4.1 printed, with no
    word of a stop."""
    example = "devices/gpu_memory.py"
    recorded = json.loads((ROOT / "recordings" / OLDEST / "devices/gpu_memory.json").read_text())
    names = {c["cell"]: c["name"] for c in recorded["cells"]}
    failed = next(f for f in recorded["declared"] if names[f["cell"]] == "float-warns")
    assert "failed" not in recorded  # no undeclared failure stopped it
    printed = "".join(next(c for c in recorded["cells"] if c["cell"] == failed["cell"])["output"]).strip()
    page.goto(f"{base_url}/devices/gpu-memory/")
    label = page.locator(f'.mx-provenance[data-mx-example="{example}"][data-mx-cell="{failed["cell"]}"]')
    _pick(page, OLDEST)
    since, claim = _declared(example, "float-warns", "en")
    sentence = label.evaluate(SENTENCE)["sentence"]
    end = ", after printing:" if printed else "."  # what it printed before, under the sentence
    raised = f"which raised {failed['message']} here{end}"
    assert sentence == f"{claim}: true on torch {since} and later, not on torch 2.4.1, {raised}"
    assert page.locator(".mx-differs code", has_text=failed["message"]).count() == 1  # the error, in code
    after = page.locator(f'.mx-provenance[data-mx-example="{example}"][data-mx-device="cpu"]')
    later = [a for a in after.all() if int(a.get_attribute("data-mx-cell")) > failed["cell"]]
    assert later and not any("stopped at a check before this cell" in a.text_content() for a in later)
    assert page.locator(".admonition.failure").count() == 0


def test_the_block_on_where_outputs_come_from_names_the_picked_release_first(page, base_url):
    from playwright.sync_api import expect

    page.goto(f"{base_url}/autograd/no-grad-and-eval/")
    first = page.locator(".mx-sources li").first
    expect(first).to_contain_text("torch 2.13.0:")
    _pick(page, OLDEST)
    expect(first).to_contain_text("torch 2.4.1 · CUDA build, no GPU:")
    assert "PyTorch 2.4.1+cu121, a build for CUDA 12.1 run without a GPU" in first.text_content()
    _pick(page, "build")
    expect(first).to_contain_text("torch 2.13.0:")


def test_a_gpus_choice_shows_that_gpus_output_in_every_cell_it_ran(page, base_url):
    page.goto(f"{base_url}/tensors/reshaping/")
    _pick(page, GPU)
    labels = page.locator(".mx-provenance[data-mx-env]:visible")
    assert labels.count() > 0
    ran = 0
    for i in range(labels.count()):
        label = labels.nth(i)
        if label.evaluate("l => Boolean(l.closest('.tabbed-set'))"):
            continue  # a device's tab keeps its device
        example, index = label.get_attribute("data-mx-example"), int(label.get_attribute("data-mx-cell"))
        assert "torch 2.11.0" in label.text_content() and "CPU" not in label.text_content()
        if "(no output of this cell recorded with torch 2.11.0" in label.text_content():
            continue  # a cell the GPU has not run as it is now (its code changed since): the build's, said so
        assert label.evaluate(SHOWN_OUTPUT) == _printed(GPU, example, index)
        ran += 1
    assert ran > 0


# Each environment a page names, by where it names it: the label beside an output, a folded note's title (a note
# of one environment), the page's list of sources, and the picker's choice (after "Outputs of torch")
NAMES = """() => {
    const named = {};
    const add = (key, where, text) => ((named[key] ||= {})[where] ||= new Set()).add(text.trim());
    for (const label of document.querySelectorAll(".mx-provenance[data-mx-env]"))
        add(label.dataset.mxEnv, "label", label.textContent);
    for (const label of document.querySelectorAll("details .mx-provenance[data-mx-envs]")) {
        const keys = label.dataset.mxEnvs.split(" ");
        const title = label.closest("details").querySelector("summary").textContent;
        if (keys.length === 1) add(keys[0], "note", title.replace(/ prints?$| 的输出$/, ""));
    }
    for (const item of document.querySelectorAll("[data-mx-source]"))
        add(item.dataset.mxSource, "sources", item.textContent.split(/[:：]/)[0]);
    for (const option of document.querySelectorAll(".mx-picker__select option")) {
        const release = option.textContent.replace(/ \\(default: [^)]*\\)$|（默认：[^）]*）$/, "");
        add(option.value, "picker", "torch " + release);
    }
    return Object.fromEntries(Object.entries(named).map(([key, where]) =>
        [key, Object.fromEntries(Object.entries(where).map(([w, texts]) => [w, [...texts]]))]));
}"""


def test_one_environment_has_one_name_in_labels_notes_sources_and_the_picker(page, base_url):
    from playwright.sync_api import expect

    seen = {}
    for lang in ("", "zh/"):
        for path in ("devices/gpu-memory/", "tensors/reshaping/", "autograd/no-grad-and-eval/"):
            page.goto(f"{base_url}/{lang}{path}")
            expect(page.locator(".mx-picker__select option").nth(1)).to_be_attached()  # with environments.json
            for key, where in page.evaluate(NAMES).items():
                for place, texts in where.items():
                    seen.setdefault((key, lang), {}).setdefault(tuple(texts), []).append(f"{lang}{path} {place}")
    assert {GPU, "build"} <= {key for key, _ in seen} and any(len(places) > 1 for by in seen.values()
                                                               for places in by.values())  # fmt: skip
    differ = {key: by for key, by in seen.items() if len(by) > 1}
    assert not differ, f"environments named differently in two places: {differ}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_output_of_a_cuda_build_run_without_a_gpu_says_so_beside_it(page, base_url, lang):
    """errors/cuda at torch 2.4.1: `torch.version.cuda` prints a version under prose about a CPU build; the label at
    that output says it is PyPI's CUDA build run without a GPU, in the page's language."""
    example = "errors/cuda_errors.py"
    index = _cell(example, "not-compiled")
    page.goto(f"{base_url}/{'' if lang == 'en' else 'zh/'}errors/cuda/")
    label = page.locator(f'.mx-provenance[data-mx-example="{example}"][data-mx-cell="{index}"]')
    _pick(page, OLDEST)
    torch = json.loads((ROOT / "recordings" / OLDEST / "environment.json").read_text())["torch"]
    assert "+cu" in torch  # PyPI's wheel: a CUDA build
    said = {"en": "torch 2.4.1 · CUDA build, no GPU", "zh": "torch 2.4.1 · CUDA 版本，无 GPU"}[lang]
    assert label.text_content() == said
    assert label.evaluate(SHOWN_OUTPUT) == _printed(OLDEST, example, index)
    # its first line, `torch.__version__` and `torch.version.cuda`: a version where the prose's CPU build has None
    printed = label.evaluate("""l => { const found = [];
        for (let n = l.closest('p').previousElementSibling; n && n.matches('.highlight'); n = n.previousElementSibling)
            found.unshift(n.textContent);
        return found.join('\\n'); }""")
    assert torch in printed


def test_the_first_output_of_errors_cuda_folds_every_release_into_at_most_three_notes_on_a_phone(browser, base_url):
    """Twelve releases print the same error but for the version each prints of itself: one note names them all,
    as a range, beside the notes of the runs that print something else."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        page.goto(f"{base_url}/errors/cuda/")
        label = page.locator(".mx-provenance[data-mx-env]").first
        notes = label.evaluate(CELL)["notes"]
        envs = label.evaluate(NOTE_ENVS)
        recorded = {folder.parent.parent.name for folder in (ROOT / "recordings").glob("*/errors/cuda_errors.json")}
        assert 1 <= len(notes) <= 3, [n["title"] for n in notes]
        assert len(envs) > len(notes) and set(envs) <= recorded, envs  # several releases in one note
        assert any("CUDA builds without a GPU" in n["title"] and "\u2013" in n["title"] for n in notes), notes
        visible = [n for n in page.locator("details.mx-other").all()[: len(notes)] if n.is_visible()]
        assert len(visible) == len(notes)
    finally:
        page.close()
