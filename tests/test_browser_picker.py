"""The torch picker on the real site, in Chromium: what a reader who picks another release sees in each cell.

Each pick shows that release's output in the cell's place, highlighted and with its copy button, or says plainly
that the page's check fails there; the build's own output stays one click away, folded, and no output is shown
twice. What a release printed is read here from its recording's file, never from the picker's data.
"""

from __future__ import annotations

import json

from helpers import ROOT
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


def _printed(folder: str, example: str, cell: int) -> str:
    """What a recording says a cell printed last: its traceback, where it raised, or else its output."""
    data = json.loads((ROOT / "recordings" / folder / f"{example.removesuffix('.py')}.json").read_text())
    found = next(c for c in data["cells"] if c["cell"] == cell)
    return "".join(found["traceback"] or found["output"]).rstrip("\n")


def _pick(page, key: str) -> None:
    from playwright.sync_api import expect

    picker = page.get_by_role("combobox", name="Outputs of torch")
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
            assert label.text_content() == "torch 2.4.1"
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


def test_where_a_check_fails_on_the_picked_release_the_page_says_so_and_shows_no_output_as_its(page, base_url):
    warning = "Converting a tensor with requires_grad=True to a scalar"  # the build's; torch 2.4.1 never prints it
    page.goto(f"{base_url}/devices/gpu-memory/")
    visible = page.locator("code:visible", has_text=warning)
    assert visible.count() > 0
    _pick(page, OLDEST)
    failure = page.locator(".admonition.failure")
    assert failure.count() > 0
    assert all("On torch 2.4.1 this page's claim does not hold" in t for t in failure.all_text_contents())
    assert visible.count() == 0  # folded, under the build's own name
    assert "(no output of this cell recorded" not in page.locator("article").text_content()
    assert page.locator("details:has(code:text-matches('requires_grad=True to a scalar')) summary").first \
        .text_content() == "torch 2.13.0 prints"


def test_the_block_on_where_outputs_come_from_names_the_picked_release_first(page, base_url):
    from playwright.sync_api import expect

    page.goto(f"{base_url}/autograd/no-grad-and-eval/")
    first = page.locator(".mx-sources li").first
    expect(first).to_contain_text("torch 2.13.0:")
    _pick(page, OLDEST)
    expect(first).to_contain_text("torch 2.4.1:")
    assert "PyTorch 2.4.1+cu121, a build for CUDA 12.1 run without a GPU" in first.text_content()
    _pick(page, "build")
    expect(first).to_contain_text("torch 2.13.0:")


def test_a_gpus_choice_shows_that_gpus_output_in_every_cell_it_ran(page, base_url):
    page.goto(f"{base_url}/tensors/reshaping/")
    _pick(page, GPU)
    labels = page.locator(".mx-provenance[data-mx-env]:visible")
    assert labels.count() > 0
    for i in range(labels.count()):
        label = labels.nth(i)
        if label.evaluate("l => Boolean(l.closest('.tabbed-set'))"):
            continue  # a device's tab keeps its device
        example, index = label.get_attribute("data-mx-example"), int(label.get_attribute("data-mx-cell"))
        assert "torch 2.11.0" in label.text_content() and "CPU" not in label.text_content()
        assert label.evaluate(SHOWN_OUTPUT) == _printed(GPU, example, index)


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
        const release = option.textContent.replace(/ \\(shown by default\\)$|（默认显示）$/, "");
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
                    seen.setdefault(key, {}).setdefault(tuple(texts), []).append(f"{lang}{path} {place}")
    assert {GPU, "build"} <= set(seen) and any(len(places) > 1 for by in seen.values() for places in by.values())
    differ = {key: by for key, by in seen.items() if len(by) > 1}
    assert not differ, f"environments named differently in two places: {differ}"
