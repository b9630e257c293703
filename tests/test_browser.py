"""The built site in headless Chromium: what a reader sees, switches to and finds."""

from __future__ import annotations

import gzip
import json
import os
import platform
import re
import shutil
import sys
from importlib import metadata
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest

from mkdocs_examples import yaml_files

sys.path.insert(0, str(Path(__file__).parent.parent / "tools"))
import search_queries  # tools/search_queries.py: drives the search, reads its data

# CHROMIUM: another Chromium-based browser, e.g. a GitHub runner's /usr/bin/google-chrome
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip

if not os.path.exists(CHROMIUM):
    if os.environ.get("CI"):
        raise RuntimeError("CI must run the browser tests: .ci/run installs Debian's chromium")
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def base_url(real_site):
    site, _ = real_site
    with search_queries.served(site) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    yield page
    page.close()


@pytest.mark.parametrize("lang", ["", "zh/"])
def test_page_shows_code_output_and_provenance(page, base_url, lang):
    page.goto(f"{base_url}/{lang}tensors/cat-and-stack/")
    output = page.locator(".language-text").first
    assert output.is_visible()
    assert "torch.Size([4, 3])" in output.inner_text()
    assert page.locator(".mx-provenance").first.is_visible()
    assert page.locator(".language-python .md-code__button").count() > 0, "code blocks have copy buttons"


def test_language_switcher_keeps_the_reader_on_the_same_page(page, base_url):
    page.goto(f"{base_url}/autograd/detach-and-data/")
    page.locator(".md-header__option .md-select").hover()
    page.get_by_role("link", name="中文").click()
    page.wait_for_url("**/zh/autograd/detach-and-data/")
    assert "脱离计算图" in page.locator("article").inner_text()


@pytest.mark.parametrize(
    ("lang", "query", "found"),
    [
        ("", "concatenated", "tensors/cat-and-stack/"),  # an error message readers paste
        ("zh/", "拼接", "zh/tensors/cat-and-stack/"),  # a Chinese word, segmented by jieba
        ("zh/", "计算图", "zh/autograd/detach-and-data/"),
        ("", "can't optimize a non-leaf Tensor", "autograd/copying-tensors/"),  # a whole error line
        ("zh/", "显存", "zh/devices/gpu-memory/"),
    ],
)
def test_search_finds_english_and_chinese_words(page, base_url, lang, query, found):
    page.goto(f"{base_url}/{lang}")
    page.locator("label.md-search__icon, .md-search__input").first.click()
    search = page.locator(".md-search__input")
    search.fill(query)
    search.press("End")  # Material searches on key events, which fill() alone does not send
    results = page.locator(".md-search-result__item a")
    results.first.wait_for(timeout=10_000)
    pages = {urlsplit(urljoin(page.url, results.nth(i).get_attribute("href"))).path for i in range(results.count())}
    assert f"/{found}" in pages, pages


# -- search: one index per language, Chinese without spaces, pasted errors, weight ----------------


def _open_search(page, base_url, path):
    page.goto(f"{base_url}/{path}")
    page.locator("label.md-search__icon, .md-search__input").first.click()
    return page.locator(".md-search__input")


_result_pages = search_queries.result_pages  # the result pages, best first, each once
_search = search_queries.search  # (page, base_url, path, query): the result pages of a query typed there


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_what_readers_type_finds_its_page(page, base_url, lang):
    """tests/search_queries.yml: each query puts its page first (or in its top `top`), Latin and Han
    letters with or without a space between them, readers' words the pages do not use."""
    asked = [(query, expected, top) for language, query, expected, top in search_queries.queries() if language == lang]
    assert len(asked) > 30
    _open_search(page, base_url, search_queries.home(lang))
    wrong = []
    for query, expected, top in asked:
        pages = search_queries.ask(page, query)
        found = search_queries.rank(pages, lang, expected)
        if not 0 < found <= top:
            wrong.append(f"{query!r}: {expected} is {f'#{found}' if found else 'missing'}, first {pages[:3]}")
    assert not wrong, "\n".join(wrong)


def test_a_segmented_query_lists_no_false_missing_word_and_highlights_every_word(page, base_url):
    """梯度累加 is searched as 梯度 and 累加: both found on the page, both in its highlight link."""
    assert _search(page, base_url, "zh/", "梯度累加")[0] == "/zh/autograd/accumulation/"
    first = page.locator(".md-search-result__item").first
    highlight = parse_qs(urlsplit(first.locator("a").first.get_attribute("href")).query)["h"]
    assert highlight == ["梯度 累加"]
    missing = [line.inner_text() for line in first.locator(".md-search-result__terms").all()]
    assert not [line for line in missing if "梯度" in line or "*" in line], missing
    # what the results show holds no zero-width space (jieba's separator in the index), so a copied
    # snippet is the page's text
    assert "\u200b" not in page.locator(".md-search-result__list").inner_text()


@pytest.mark.parametrize(("lang", "query"), [("", "backward"), ("zh/", "backward"), ("zh/", "张量")])
def test_search_results_stay_in_the_language_of_the_page(page, base_url, lang, query):
    indexes = []
    page.on("request", lambda r: indexes.append(urlsplit(r.url).path) if "search_index" in r.url else None)
    pages = _search(page, base_url, f"{lang}autograd/graph/", query)
    assert len(pages) > 3, pages
    assert all(p.startswith("/zh/") == bool(lang) for p in pages), pages
    assert indexes == [f"/{lang}search/search_index.json"]


@pytest.mark.parametrize(
    ("query", "found"),
    [  # typed without spaces; before, only the first word counted (or none: 批归一化评估模式)
        ("保存模型参数", "modules/state-dict/"),
        ("概率分布散度", "losses/kl-div/"),
        ("张量转列表", "tensors/to-python/"),
        ("模型复制", "modules/copying/"),
        ("可见设备编号", "devices/visible-devices/"),
        ("批归一化评估模式", "modules/train-eval/"),
        # hooks/search_assets/terms.yml: the page never says 交叉熵
        ("交叉熵", "losses/cross-entropy-and-nll/"),
        ("学习率", "optimization/learning-rate/"),  # the index keeps 学习率 whole
    ],
)
def test_chinese_query_without_spaces_finds_its_page_first(page, base_url, query, found):
    assert _search(page, base_url, "zh/", query)[0] == f"/zh/{found}"


@pytest.mark.parametrize(
    ("lang", "error", "found"),
    [  # copied from the pages; some without their exception's name, some with other numbers
        ("", "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x3 and 2x2)",
         "arithmetic/multiplication/ errors/shapes/"),
        ("", "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
         "autograd/detach-and-data/ errors/autograd/"),
        ("", "expected target dtype to be Long or Byte, but got Float", "losses/cross-entropy-and-nll/"),
        ("", "ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 16])",
         "modules/train-eval/"),
        ("", "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
         "tensors/to-python/"),
        ("", "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 3)",
         "tensors/reshaping/ errors/shapes/"),
        ("zh/", "mat1 and mat2 shapes cannot be multiplied (8x5 and 3x3)",
         "zh/arithmetic/multiplication/ zh/errors/shapes/"),
        ("", "TypeError: default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
             "found <class 'PIL.Image.Image'>", "errors/training/"),
        ("zh/", "NotImplementedError: Module [Net] is missing the required \"forward\" function",
         "zh/errors/training/"),
        ("zh/", "RuntimeError: expected target dtype to be Long or Byte, but got Float",
         "zh/losses/cross-entropy-and-nll/"),
    ],
)  # fmt: skip
def test_pasted_error_line_finds_its_page_first(page, base_url, lang, error, found):
    """The first result shows that error: the page that explains it, or its section of the errors pages."""
    assert _search(page, base_url, lang, error)[0] in {f"/{page}" for page in found.split()}


def test_pasting_with_the_mouse_searches_at_once(page, base_url):
    search = _open_search(page, base_url, "")
    search.focus()
    # what a paste from the context menu does: the browser inserts the text and sends `input`,
    # without a single key event
    page.keyboard.insert_text("sampler option is mutually exclusive with shuffle")
    assert _result_pages(page)[0] == "/data/splits/"


# What a reader downloads from GitHub Pages, which sends HTML, JSON, CSS and JavaScript gzipped. A
# page and the search index are budgeted apart: the index grows with every page the site adds (about
# 1.5 KB sent per page in English, 1.8 KB in Chinese, with 65 pages each), so its budget is per page
# it indexes; a page's own weight is not allowed to grow with the site.
PAGE_BUDGET = 30_000
INDEX_BUDGET_PER_PAGE = 2_000


@pytest.mark.parametrize("path", ["tensors/cat-and-stack/", "zh/devices/gpu-memory/"])
def test_a_page_and_its_search_index_weigh_at_most_the_budget_as_sent(page, base_url, path):
    raw, sent, bodies = {}, {}, {}

    def measure(response) -> None:
        if response.ok:
            body, where = response.body(), urlsplit(response.url).path
            raw[where], sent[where], bodies[where] = len(body), len(gzip.compress(body, 6)), body

    page.on("response", measure)
    page.goto(f"{base_url}/{path}")
    page.wait_for_load_state("networkidle")
    view = sum(sent.values())
    assert not [p for p in sent if p.endswith("search_index.json")], "the index waits for the reader to search"
    _search(page, base_url, path, "tensor")
    index = f"/{'zh/' if path.startswith('zh/') else ''}search/search_index.json"
    pages = {doc["location"].split("#")[0] for doc in json.loads(bodies[index])["docs"]}
    print(f"{path}: page {raw[f'/{path}']} bytes, {sent[f'/{path}']} sent; index {raw[index]} bytes, "
          f"{sent[index]} sent for {len(pages)} pages; every response: {view} sent viewing the page, "
          f"{sum(sent.values())} once searched")  # fmt: skip
    assert sent[f"/{path}"] <= PAGE_BUDGET
    assert sent[index] <= INDEX_BUDGET_PER_PAGE * len(pages), sorted(sent.items(), key=lambda item: -item[1])[:5]


def test_a_notebook_view_switches_to_the_same_view_and_searches_its_language(page, base_url):
    page.goto(f"{base_url}/notebooks/tensors/cat_and_stack/")
    page.locator(".md-header__option .md-select").hover()
    page.get_by_role("link", name="中文").click()
    page.wait_for_url("**/zh/notebooks/tensors/cat_and_stack/")
    assert page.title().startswith("torch.cat 与 torch.stack：笔记本")
    indexes = []
    page.on("request", lambda r: indexes.append(urlsplit(r.url).path) if "search_index" in r.url else None)
    page.locator("label.md-search__icon, .md-search__input").first.click()
    pages = search_queries.ask(page, "张量拼接")
    assert pages[0] == "/zh/tensors/cat-and-stack/", pages
    assert indexes == ["/zh/search/search_index.json"]


# -- accessibility: axe-core on pages of both languages, light and dark; keyboard focus -----------

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"  # README.md there: version, licence
AXE_PAGES = [  # the home page, a page of each kind: code and outputs, tab sets, tracebacks, tables, links
    "",
    "tensors/cat-and-stack/",
    "autograd/detach-and-data/",
    "devices/gpu-memory/",
    "errors/training/",
    "losses/kl-div/",
    "glossary/",
]


@pytest.fixture(scope="module")
def axe_source() -> str:
    return AXE.read_text(encoding="utf-8")


AXE_RUN = """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
    .filter(v => v.impact === "critical" || v.impact === "serious")
    .map(v => ({rule: v.id, impact: v.impact, nodes: v.nodes.length,
                first: v.nodes.slice(0, 3).map(n => n.target.join(" ") + ": " + n.failureSummary)}))"""


@pytest.mark.parametrize("lang", ["", "zh/"])
@pytest.mark.parametrize("path", AXE_PAGES)
def test_axe_finds_no_critical_or_serious_violation(browser, base_url, axe_source, path, lang):
    """WCAG 2 A and AA and axe's best practices, light and dark: a reader whose system prefers light, then
    the same page after the header's toggle, as Material's palette with `prefers-color-scheme: dark` shows it."""
    page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme="light")
    violations = {}
    try:
        page.goto(f"{base_url}/{lang}{path}")
        page.wait_for_function("() => !document.querySelector('.arithmatex:not(:has(.katex))')")  # as KaTeX drew
        page.add_script_tag(content=axe_source)
        for scheme, palette in (("light", "default"), ("dark", "slate")):
            if scheme == "dark":
                page.locator("form[data-md-component=palette] label:visible").first.click()
            page.wait_for_function(f"document.body.dataset.mdColorScheme === {palette!r}")
            violations[scheme] = page.evaluate(AXE_RUN)
    finally:
        page.close()
    assert violations == {"light": [], "dark": []}, violations


def test_the_dark_palette_a_reader_toggles_to_is_the_one_a_dark_system_gets(browser, base_url):
    """What the axe test checks in dark: the toggle's scheme, the same as `prefers-color-scheme: dark` loads."""
    schemes = []
    for color_scheme in ("light", "dark"):
        page = browser.new_page(color_scheme=color_scheme)
        try:
            page.goto(f"{base_url}/tensors/cat-and-stack/")
            if color_scheme == "light":
                page.locator("form[data-md-component=palette] label:visible").first.click()
            page.wait_for_function("document.body.dataset.mdColorScheme === 'slate'")
            schemes.append(page.evaluate("[document.body.dataset.mdColorScheme, document.body.dataset.mdColorPrimary]"))
        finally:
            page.close()
    assert schemes[0] == schemes[1]


# The markup of pymdownx.tabbed (alternate_style), put after the first paragraph of the page's prose
TAB_SET = """() => {
    const set = document.createElement("div");
    set.className = "tabbed-set tabbed-alternate";
    set.innerHTML = '<input checked id="__t_1" name="__t" type="radio"><input id="__t_2" name="__t" type="radio">'
        + '<div class="tabbed-labels"><label for="__t_1">CPU</label><label for="__t_2">CUDA</label></div>'
        + '<div class="tabbed-content"><div class="tabbed-block"><p>a</p></div>'
        + '<div class="tabbed-block"><p>b</p></div></div>';
    document.querySelector("article p:not(.mx-downloads)").after(set);  // prose, not the take-away line
}"""


@pytest.mark.parametrize("lang", ["", "zh/"])
def test_the_first_tab_onto_a_tab_set_shows_a_focus_ring(page, base_url, lang):
    page.goto(f"{base_url}/{lang}autograd/detach-and-data/")
    if not page.locator(".tabbed-set").count():  # no page has a device tab set until the GPU job records
        page.evaluate(TAB_SET)  # CPU beside CUDA in one release: a set as pymdownx.tabbed writes it
    tab_set = page.locator(".tabbed-set").first
    # Chromium starts sequential focus navigation where the reader clicked: the block before the set
    tab_set.locator("xpath=preceding-sibling::*[1]").click()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.matches('.tabbed-set > input')")
    labels = tab_set.locator(".tabbed-labels")
    ring = labels.evaluate("e => { const s = getComputedStyle(e); return [s.outlineStyle, s.outlineWidth] }")
    assert ring[0] != "none" and ring[1] != "0px", ring


# -- requests: a reader's browser asks the site's own host and nothing else ------------------------


def test_a_new_reader_asks_nothing_of_any_host_but_the_site(browser, base_url):
    """A fresh session (no cache, no storage), through pages, search and a notebook view."""
    site, elsewhere = urlsplit(base_url).netloc, []

    def keep_or_refuse(route) -> None:
        if urlsplit(route.request.url).netloc == site:
            route.continue_()
        else:  # logged and refused, so that the test never depends on the network
            elsewhere.append(route.request.url)
            route.abort()

    context = browser.new_context()
    try:
        context.route("**/*", keep_or_refuse)
        page = context.new_page()
        for path in [
            "", "tensors/cat-and-stack/", "zh/devices/gpu-memory/", "notebooks/tensors/cat_and_stack/",
            "losses/kl-div/", "zh/losses/bce/",  # formulas: KaTeX and its fonts
        ]:  # fmt: skip
            page.goto(f"{base_url}/{path}")
            page.wait_for_load_state("networkidle")
        _search(page, base_url, "zh/", "显存")
        page.wait_for_load_state("networkidle")
    finally:
        context.close()
    assert elsewhere == []


# -- the 404 page: GitHub Pages serves the root 404.html for every missing path ----------------------

SITE_PATH = urlsplit(yaml_files.load(search_queries.ROOT / "mkdocs.yml")["site_url"]).path  # /pytorch-tips/


@pytest.mark.parametrize(
    ("lang", "title", "home", "query", "found"),
    [
        ("", "404: page not found", "home page", "concatenated", "tensors/cat-and-stack/"),
        ("zh/", "404：页面不存在", "首页", "显存", "devices/gpu-memory/"),
    ],
)
def test_a_missing_page_shows_the_404_of_its_language_at_the_address_typed(
    page, base_url, lang, title, home, query, found
):
    """Under /zh/, the Chinese 404 page, without a redirect; its links, styles and search work at any depth."""
    indexes = []
    page.on("request", lambda r: indexes.append(urlsplit(r.url).path) if "search_index" in r.url else None)
    typed = f"{base_url}{SITE_PATH}{lang}no/such/page/"
    response = page.goto(typed)
    assert response is not None and response.status == 404
    heading = page.locator("article h1")
    heading.wait_for()
    page.wait_for_function(f"() => document.querySelector('article h1').textContent.trim() === {title!r}")
    page.wait_for_load_state("networkidle")
    assert page.url == typed  # the address the reader typed, not /zh/404.html
    assert page.evaluate("document.documentElement.lang") == (lang.strip("/") or "en")
    assert page.locator("body").evaluate("e => getComputedStyle(e).visibility") == "visible"
    header = page.locator(".md-header").evaluate("e => getComputedStyle(e).backgroundColor")
    assert header == "rgb(196, 60, 0)", header  # the site's stylesheet, loaded from three folders down
    page.locator("label.md-search__icon, .md-search__input").first.click()
    assert f"{SITE_PATH}{lang}{found}" in search_queries.ask(page, query)[:3]  # the search of its language
    assert indexes == [f"{SITE_PATH}{lang}search/search_index.json"]
    page.keyboard.press("Escape")
    link = page.locator("article a", has_text=home)
    assert urlsplit(urljoin(page.url, link.get_attribute("href"))).path == f"{SITE_PATH}{lang}"
    link.click()
    page.wait_for_load_state()
    assert urlsplit(page.url).path == f"{SITE_PATH}{lang}"
    assert "404" not in page.locator("article h1").first.inner_text()


# -- reading: what a reader looks for stands out ------------------------------------------------


@pytest.mark.parametrize(("lang", "current", "other"), [("", "English", "中文"), ("zh/", "中文", "English")])
def test_the_language_switcher_marks_the_readers_language(page, base_url, lang, current, other):
    page.goto(f"{base_url}/{lang}tensors/cat-and-stack/")
    page.locator(".md-header__option .md-select").hover()
    marked = page.locator(".md-select__link[aria-current]")
    assert marked.count() == 1 and marked.inner_text().strip().endswith(current)
    weight = marked.evaluate("e => getComputedStyle(e).fontWeight")
    unmarked = page.get_by_role("link", name=other).evaluate("e => getComputedStyle(e).fontWeight")
    assert int(weight) >= 700 > int(unmarked)  # told apart by more than colour


@pytest.mark.parametrize(("lang", "label"), [("", "Last update: "), ("zh/", "最后更新：")])
def test_the_last_updated_date_is_labelled_in_words(page, base_url, lang, label):
    page.goto(f"{base_url}/{lang}tensors/cat-and-stack/")
    fact = page.locator(".md-source-file__fact").first
    assert re.fullmatch(rf"{label}\d{{4}}-\d{{2}}-\d{{2}}", fact.inner_text().strip())


def test_the_exception_line_of_a_traceback_stands_out(page, base_url):
    page.goto(f"{base_url}/errors/training/")
    traceback = page.locator(".language-pytb").first
    style = "e => { const s = getComputedStyle(e); return [s.color, s.fontWeight] }"
    exception = traceback.locator(".gr").first.evaluate(style)
    message = traceback.locator(".gr + .n").first.evaluate(style)
    frame = traceback.locator(".gt").first.evaluate(style)  # "Traceback (most recent call last):"
    assert exception == message and exception[0] != frame[0] and int(exception[1]) >= 700 > int(frame[1])


# -- the torch picker: each output as the reader's release printed it ---------------------------

RECORDINGS = Path(__file__).parent.parent / "recordings"
BUILT_TORCH = metadata.version("torch")  # the torch the real site was built with


def _cpu_releases() -> list[tuple[str, Path]]:
    """Each CPU environment recorded in this repository: its torch release and its folder (from its manifest)."""
    found = []
    for manifest in sorted(RECORDINGS.glob("*/environment.json")):
        env = json.loads(manifest.read_text())
        if env["device"] == "cpu" and env["torch"].split("+")[0] != BUILT_TORCH.split("+")[0]:
            found.append((env["torch"].split("+")[0], manifest.parent))
    return found


def _recorded(folder: Path, example: str, name: str) -> str:
    """What the recording in ``folder`` says cell ``name`` of ``example`` printed, read from the file itself."""
    data = json.loads((folder / f"{example.removesuffix('.py')}.json").read_text())
    return "".join(next(c for c in data["cells"] if c["name"] == name)["output"]).rstrip("\n")


# the visible output before a label: the picker's, or the build's (hidden once the picker replaces it)
SHOWN_OUTPUT = """label => {
    let node = label.closest("p").previousElementSibling;
    while (node && node.hidden) node = node.previousElementSibling;
    return node.querySelector("code").textContent.replace(/\\n$/, "");
}"""
VERSIONS = '.mx-provenance[data-mx-example="check_install.py"][data-mx-cell="0"]'  # the home page's first output


def test_the_picker_tests_have_releases_to_pick():
    assert _cpu_releases(), "no CPU recordings of another torch release: the picker's tests would check nothing"


@pytest.mark.parametrize(("release", "folder"), _cpu_releases())
@pytest.mark.parametrize(("lang", "name"), [("", "Outputs of torch"), ("zh/", "输出来自 torch")])
def test_picking_a_release_shows_what_it_printed_labelled_and_the_choice_stays(page, base_url, release, folder,
                                                                               lang, name):  # fmt: skip
    from playwright.sync_api import expect

    page.goto(f"{base_url}/{lang}")
    label = page.locator(VERSIONS)
    built = f"torch {BUILT_TORCH.split('+')[0]} · CPU"
    expect(label).to_have_text(built)
    assert f"torch {BUILT_TORCH}" in label.evaluate(SHOWN_OUTPUT)
    picker = page.get_by_role("combobox", name=name)  # a labelled <select> in the header
    expect(picker.locator("xpath=ancestor::header")).to_have_count(1)  # the picker comes with environments.json
    picker.select_option(release)
    expect(label).to_have_text(f"torch {release} · CPU")
    recorded = _recorded(folder, "check_install.py", "versions")
    assert label.evaluate(SHOWN_OUTPUT) == recorded and f"torch {BUILT_TORCH}" not in recorded
    page.reload()  # remembered
    expect(label).to_have_text(f"torch {release} · CPU")
    assert label.evaluate(SHOWN_OUTPUT) == recorded and picker.input_value() == release
    page.goto(f"{base_url}/{lang}tensors/cat-and-stack/")  # and on every other page
    expect(page.locator('.mx-provenance[data-mx-device="cpu"]').first).to_contain_text(f"torch {release}")
    assert picker.input_value() == release
    page.go_back()
    picker.select_option(BUILT_TORCH.split("+")[0])  # the build's own release: the page as built
    expect(label).to_have_text(built)
    assert f"torch {BUILT_TORCH}" in label.evaluate(SHOWN_OUTPUT)


def test_a_cell_only_a_gpu_ran_keeps_its_gpus_output_whatever_the_release(page, base_url):
    from playwright.sync_api import expect

    page.goto(f"{base_url}/devices/gpu-memory/")
    cuda = page.locator('.mx-provenance[data-mx-device="cuda"]')
    assert cuda.count() > 0
    before = [cuda.nth(i).inner_text() for i in range(cuda.count())]
    outputs = [cuda.nth(i).evaluate(SHOWN_OUTPUT) for i in range(cuda.count())]
    assert all("torch" in text and "CPU" not in text for text in before), before
    for release, _ in _cpu_releases():
        page.get_by_role("combobox", name="Outputs of torch").select_option(release)
        expect(page.locator('.mx-provenance[data-mx-device="cpu"]').first).to_contain_text(release)  # applied
        after = [cuda.nth(i).inner_text() for i in range(cuda.count())]
        assert all(a.startswith(b) for a, b in zip(after, before, strict=True)), after  # "(nearest recorded to …)"
        assert [cuda.nth(i).evaluate(SHOWN_OUTPUT) for i in range(cuda.count())] == outputs


def test_a_release_recorded_on_no_cpu_shows_the_nearest_cpu_run_and_says_so(page, base_url):
    """Today torch 2.11.0 has CUDA recordings only: a CPU output shows the nearest CPU run's, named as such."""
    from playwright.sync_api import expect

    page.goto(f"{base_url}/")
    picker = page.get_by_role("combobox", name="Outputs of torch")
    expect(picker.locator("option").nth(1)).to_be_attached()  # the options come with environments.json
    offered = [o.get_attribute("value") for o in picker.locator("option").all()]
    cpu = {release for release, _ in _cpu_releases()} | {BUILT_TORCH.split("+")[0]}
    gpu_only = [release for release in offered if release not in cpu]
    assert gpu_only, offered  # the CUDA recordings' torch 2.11.0
    for release in gpu_only:
        picker.select_option(release)
        expect(page.locator(VERSIONS)).to_contain_text(f"(nearest recorded to torch {release})")
        assert page.locator(VERSIONS).inner_text().startswith("torch ")


def test_without_javascript_a_page_shows_the_builds_outputs_and_no_picker(browser, base_url):
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{base_url}/")
        label = page.locator(VERSIONS)
        assert label.inner_text() == f"torch {BUILT_TORCH.split('+')[0]} · CPU"
        output = label.locator("xpath=../preceding-sibling::*[1]").inner_text()
        assert f"torch {BUILT_TORCH}" in output
        assert page.locator(".mx-picker").count() == 0
        sources = page.locator(".mx-sources").inner_text()
        assert f"torch {BUILT_TORCH} · CPU · Python {platform.python_version()}" in sources
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", ["", "zh/devices/gpu-memory/"])
def test_axe_finds_no_critical_or_serious_violation_once_a_release_is_picked(browser, base_url, axe_source, path,
                                                                              scheme):  # fmt: skip
    """The picker's outputs and labels, as axe sees them after a reader picked another release."""
    from playwright.sync_api import expect

    release = _cpu_releases()[0][0]
    page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    try:
        page.goto(f"{base_url}/{path}")
        page.locator("select.mx-picker__select").select_option(release)
        expect(page.locator('.mx-provenance[data-mx-device="cpu"]').first).to_contain_text(release)
        page.add_script_tag(content=axe_source)
        violations = page.evaluate(AXE_RUN)
    finally:
        page.close()
    assert violations == [], violations


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_an_output_looks_unlike_code(browser, base_url, scheme):
    """Code on the grey of code blocks; an output, and a traceback, on the page's background with a rule."""
    page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    try:
        page.goto(f"{base_url}/errors/training/")
        look = """e => { const block = e.closest(".highlight"), s = getComputedStyle(block);
            return [getComputedStyle(e).backgroundColor, s.borderLeftWidth, s.borderLeftColor] }"""
        code = page.locator(".language-python pre > code").first.evaluate(look)
        output = page.locator(".language-text:has(.filename) pre > code").first.evaluate(look)
        traceback = page.locator(".language-pytb pre > code").first.evaluate(look)
        body = page.locator("body").evaluate("e => getComputedStyle(e).backgroundColor")
    finally:
        page.close()
    assert output[0] == traceback[0] == body != code[0], (output, traceback, code, body)
    assert float(output[1].removesuffix("px")) >= 3 and float(traceback[1].removesuffix("px")) >= 3
    assert output[2] != traceback[2]  # a traceback's rule is not an output's


@pytest.mark.parametrize(("lang", "words"), [("", "Take it away:"), ("zh/", "带走这个示例：")])
def test_the_take_away_links_are_at_the_top_of_the_page(page, base_url, lang, words):
    page.goto(f"{base_url}/{lang}tensors/cat-and-stack/")
    line = page.locator("article p.mx-downloads")
    assert line.count() == 1  # at the top only: not again under the first code block
    assert line.evaluate("e => e.previousElementSibling.tagName") == "H1"
    assert line.inner_text().startswith(words) and line.get_attribute("data-search-exclude") is not None
    hrefs = [urljoin(page.url, a.get_attribute("href")) for a in line.locator("a").all()]
    assert [urlsplit(h).path.rsplit("/", 2)[-2:] for h in hrefs[:3]] == [
        ["tensors", "cat_and_stack.py"], ["tensors", "cat_and_stack.ipynb"], ["cat_and_stack", ""],
    ]  # fmt: skip
    assert urlsplit(hrefs[3]).netloc == "colab.research.google.com"
    for href in hrefs[:3]:  # the script, the notebook and the view are there
        assert page.request.get(href).ok, href


# -- maths: the site's own KaTeX, only where a page has a formula -------------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", ["losses/kl-div/", "zh/losses/cross-entropy-and-nll/"])
def test_formulas_are_rendered_by_the_sites_own_katex(browser, base_url, path, scheme):
    page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    asked = []
    page.on("request", lambda r: asked.append(r.url))
    try:
        page.goto(f"{base_url}/{path}")
        page.wait_for_function("() => document.querySelectorAll('.arithmatex .katex').length > 0")
        page.wait_for_function("() => document.fonts.status === 'loaded'")
        formulas = page.locator(".arithmatex")
        assert formulas.count() == page.locator(".arithmatex .katex").count() > 3  # every one of them
        assert page.locator("div.arithmatex .katex-display").count() >= 1  # the displayed ones too
        assert page.locator(".katex-error").count() == 0
        text = page.locator("p:has(> .arithmatex)").first.evaluate("e => getComputedStyle(e).color")
        maths = page.locator(".arithmatex .katex").first.evaluate("e => getComputedStyle(e).color")
        fonts = page.evaluate("() => document.fonts.check('16px KaTeX_Main')")
    finally:
        page.close()
    assert maths == text  # in the text's colour, dark mode included
    assert fonts
    katex = [url for url in asked if "/katex/" in url]
    assert katex and all(url.startswith(f"{base_url}/assets/katex/") for url in katex), katex


def test_katex_is_fetched_only_by_a_page_with_a_formula_and_follows_material_s_pages(page, base_url):
    """A page without formulas asks nothing of KaTeX; a formula that comes with a later page (Material's
    instant navigation announces it on document$) is rendered then."""
    asked = []
    page.on("request", lambda r: asked.append(urlsplit(r.url).path))
    page.goto(f"{base_url}/tensors/cat-and-stack/")
    page.wait_for_load_state("networkidle")
    assert not [path for path in asked if "katex" in path]
    page.evaluate(
        """() => { const formula = document.createElement("span");
            formula.className = "arithmatex"; formula.textContent = "\\(x^2\\)";
            document.querySelector("article p").append(formula); document$.next(document) }"""
    )
    page.wait_for_selector(".arithmatex .katex")
    assert "/assets/katex/katex.min.js" in asked
