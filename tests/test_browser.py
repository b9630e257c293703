"""The built site in headless Chromium: what a reader sees, switches to and asks for, and the torch picker.

Search is in test_browser_search.py, accessibility in test_browser_axe.py; the fixtures (`browser`,
`page`, `base_url`: the real site, served) in conftest.py.
"""

from __future__ import annotations

import json
import platform
import re
import time
from pathlib import Path
from urllib.parse import quote, urljoin, urlsplit

import pytest
from helpers import BUILT_TORCH, DRAWN, NO_GPU, ROOT, cpu_releases, release_label, search_queries
from links import site_base  # tools/links.py


def seen(locator) -> str:
    """The text a reader sees at ``locator`` once there: site.css lays out an article's later blocks only as they
    come near the screen, and until then a block has no rendered text (``innerText``)."""
    locator.scroll_into_view_if_needed()
    for _ in range(100):  # laid out at the browser's next frame; polled from here: a page without JavaScript
        if locator.evaluate(DRAWN):  # runs no wait_for_function
            break
        locator.page.wait_for_timeout(20)
    return locator.inner_text()


@pytest.mark.parametrize("lang", ["", "zh/"])
def test_page_shows_code_output_and_provenance(page, base_url, lang):
    page.goto(f"{base_url}/{lang}tensors/cat-and-stack/")
    output = page.locator(".language-text").first
    assert output.is_visible()
    assert "torch.Size([4, 3])" in output.inner_text()
    assert page.locator(".mx-provenance").first.is_visible()
    assert page.locator(".language-python .md-code__button").count() > 0, "code blocks have copy buttons"


def test_a_code_block_is_mounted_as_it_comes_on_screen_and_a_keyboard_reaches_those_below(browser, base_url):
    """`content.lazy` (mkdocs.yml): Material measures a code block and gives it its copy button once it comes on
    screen, not every block as the page starts (errors/cuda has 80); yet each block that is wider than a phone's
    screen is a tab stop from the start (examples-pages), so a keyboard reader can scroll it."""
    page = browser.new_page(viewport={"width": 390, "height": 800})
    shown = "pre > code:not(details:not([open]) *)"  # not in a folded note, which mounts as it opens
    state = f"""() => {{ const blocks = [...document.querySelectorAll('{shown}')];
        return {{wide_unfocusable: blocks.filter(c => c.scrollWidth > c.clientWidth && c.tabIndex < 0).length,
                wide: blocks.filter(c => c.scrollWidth > c.clientWidth).length,
                copy: blocks.map(c => !!c.closest('.highlight').querySelector('.md-code__button'))}}; }}"""
    try:
        page.goto(f"{base_url}/errors/cuda/")
        before = page.evaluate(state)
        assert before["wide"] > 5 and before["wide_unfocusable"] == 0, before
        assert not before["copy"][-1] and sum(before["copy"]) < len(before["copy"]) / 4, before["copy"]
        page.locator(shown).last.scroll_into_view_if_needed()
        page.wait_for_function(f"() => ({state})().copy.at(-1)")
    finally:
        page.close()


# Each block of the article: where it starts, whether site.css lays it out only near the screen, whether it is drawn
ARTICLE_BLOCKS = f"""() => [...document.querySelector('.md-content__inner').children]
    .filter(block => !block.matches('.highlight'))  /* code blocks: content.lazy's own rule */
    .map(block => ({{top: block.getBoundingClientRect().top, lazy: getComputedStyle(block).contentVisibility === 'auto',
                    drawn: ({DRAWN})(block)}}))"""


@pytest.mark.parametrize("path", ["zh/losses/bce/", "zh/errors/cuda/", "changes/"])
def test_a_long_pages_blocks_are_laid_out_as_they_come_near_the_screen(browser, base_url, path):
    """site.css: `content-visibility: auto` on an article's blocks from its 24th on, which spares a phone about an
    eighth of its main thread's work while zh/errors/cuda loads (bench/pages.py). What a phone shows first and
    half a screen below is laid out at once, never from a placeholder's height (zh/losses/bce has the most blocks
    there); a block far below is drawn once the reader scrolls to it."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        page.goto(f"{base_url}/{path}")
        blocks = page.evaluate(ARTICLE_BLOCKS)
        near = [block for block in blocks if block["top"] < 844 * 1.5]
        assert near and not any(block["lazy"] for block in near), near
        assert all(block["drawn"] for block in near), near
        far = [i for i, block in enumerate(blocks) if block["lazy"] and block["top"] > 844 * 3]
        assert far and not blocks[far[-1]]["drawn"], far
        last = f"() => ({ARTICLE_BLOCKS})()[{far[-1]}]"
        from playwright.sync_api import TimeoutError as NotYet

        block = page.locator(".md-content__inner > :not(.highlight)").nth(far[-1])
        for attempt in range(3):  # scrolled to again if the page, still laying out blocks above, moved it away
            block.scroll_into_view_if_needed()
            try:
                page.wait_for_function(f"() => ({last})().drawn", timeout=10_000)
                break
            except NotYet:
                if attempt == 2:
                    raise
    finally:
        page.close()


# Every change to <body>'s palette, recorded from before the page is parsed: whether the article was there yet
PALETTE_CHANGES = """window.paletteChanges = [];
new MutationObserver(records => records.forEach(r => window.paletteChanges.push(
        r.attributeName + (document.querySelector("article") ? " after the content" : " before the content"))))
    .observe(document, {attributes: true, subtree: true, attributeFilter: ["data-md-color-scheme",
        "data-md-color-primary", "data-md-color-accent", "data-md-color-switching"]});"""
BEFORE = "data-md-color-scheme before the content"


def test_the_palette_toggle_switches_remembers_and_is_applied_before_the_content(browser, base_url):
    """overrides/partials/palette.html: the header's toggle (a click, or Enter on its option) switches the palette
    and the next page opens in it; a first visit on a dark system opens dark; the palette is applied in the
    header, before the content is parsed, and never again as the page loads (Material's component did it after
    the page was parsed, with two recalculations of the whole page's style)."""
    context = browser.new_context(color_scheme="light")
    context.add_init_script(PALETTE_CHANGES)
    state = """() => {
        const header = getComputedStyle(document.querySelector("header"));
        const hex = "#" + header.backgroundColor.match(/\\d+/g).map(c => (+c).toString(16).padStart(2, "0")).join("");
        const shown = document.querySelector("form[data-palette] label:not([hidden])");
        return [document.body.dataset.mdColorScheme, shown.title,
                document.querySelectorAll("meta[name=color-scheme]").length,
                document.querySelector("meta[name=color-scheme]").content,
                document.querySelector("meta[name=theme-color]").content === hex]; }"""
    try:
        page = context.new_page()
        page.goto(f"{base_url}/errors/cuda/")
        assert page.evaluate(state) == ["default", "Dark mode", 1, "light", True]
        assert page.evaluate("window.paletteChanges") == []
        page.locator("form[data-palette] label:visible").click()
        assert page.evaluate(state) == ["slate", "Light mode", 1, "dark", True]
        page.goto(f"{base_url}/zh/tensors/cat-and-stack/")  # the same palette on the next page, from its start
        assert page.evaluate(state)[:2] == ["slate", "浅色模式"]
        changes = page.evaluate("window.paletteChanges")  # base.html's script, from storage; then nothing
        assert BEFORE in changes and all(c.endswith(" before the content") for c in changes), changes
        page.locator("form[data-palette] input:checked").focus()
        page.keyboard.press("Enter")
        assert page.evaluate(state)[0] == "default"
        assert page.evaluate("document.activeElement.id") == "__palette_0"
    finally:
        context.close()
    context = browser.new_context(color_scheme="dark")  # a first visit: nothing stored
    context.add_init_script(PALETTE_CHANGES)
    try:
        page = context.new_page()
        page.goto(f"{base_url}/errors/cuda/")
        assert page.evaluate(state) == ["slate", "Light mode", 1, "dark", True]
        assert page.evaluate("window.paletteChanges") == [BEFORE]  # by the header's script
    finally:
        context.close()


def test_a_phone_keeps_the_pickers_room_so_the_title_does_not_move(browser, base_url):
    """At 390 px the torch picker comes above the title once its data is fetched. The build kept its room there
    (publish/picker.py: ROOM), so the title is drawn where it stays from the first paint of the page's beginning
    on: the page cut after its title, as a browser may paint it while the rest arrives."""
    from urllib.request import urlopen

    url = f"{base_url}/zh/errors/cuda/"
    html = urlopen(url).read().decode()
    top = "() => document.querySelector('.md-content__inner > h1').getBoundingClientRect().top"
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.route(url, lambda route: route.fulfill(body=html[: html.index("</h1>") + 5], content_type="text/html"))
        page.goto(url)
        first = page.evaluate(top)
        page.unroute(url)
        page.goto(url)
        page.locator(".mx-picker--page").wait_for()
        assert page.locator(".mx-picker-room").count() == 0  # the picker took its place
        assert first == page.evaluate(top) > 0
    finally:
        page.close()


def test_a_phone_shows_what_many_releases_print_as_a_few_rows_of_titles(browser, base_url):
    """Under check_install, every release prints its own version: the releases that print alike but for it are one
    note (a wall of boxes otherwise, one per release), whose title names them as a range; closed, the notes take a
    few rows; opened, one takes the column's width."""
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.goto(f"{base_url}/")
        notes = page.locator(".mx-provenance[data-mx-example='check_install.py']").evaluate_handle(
            """label => {
                const found = [];
                for (let n = label.closest("p").nextElementSibling; n && n.matches("details"); n = n.nextElementSibling)
                    found.push(n);
                return found;
            }"""
        )
        page.evaluate("notes => notes[0].scrollIntoView()", notes)
        boxes = page.evaluate("notes => notes.map(n => n.getBoundingClientRect().toJSON())", notes)
        envs = "notes => notes.flatMap(n => n.querySelector('[data-mx-envs]').dataset.mxEnvs.split(' '))"
        named = page.evaluate(envs, notes)
        assert len(named) >= 6 and len(boxes) <= 3, (named, boxes)  # the releases recorded, in a few notes
        titles = page.evaluate("notes => notes.map(n => n.querySelector('summary').textContent)", notes)
        assert any("\u2013" in title for title in titles), titles  # consecutive releases as a range
        rows = {round(box["y"]) for box in boxes}
        assert len(rows) <= len(boxes) and max(box["bottom"] for box in boxes) - boxes[0]["top"] < 844 / 2, boxes
        width = page.evaluate("notes => { notes[0].open = true; return notes[0].getBoundingClientRect().width }", notes)
        assert width > page.locator(".md-content__inner").bounding_box()["width"] * 0.9
    finally:
        page.close()


def test_language_switcher_keeps_the_reader_on_the_same_page(page, base_url):
    page.goto(f"{base_url}/autograd/detach-and-data/")
    page.locator(".md-header__option .md-select").hover()
    page.get_by_role("link", name="中文").click()
    page.wait_for_url("**/zh/autograd/detach-and-data/")
    assert "脱离计算图" in page.locator("article").inner_text()


# The page's headings in order, each with its id and its top below the header
HEADINGS = """() => { const below = document.querySelector('.md-header').getBoundingClientRect().bottom;
    return [...document.querySelectorAll('.md-content__inner :is(h2, h3, h4, h5, h6)[id]')]
        .map(h => [h.id, h.getBoundingClientRect().top - below]); }"""


@pytest.mark.parametrize("width", [390, 1280])
def test_switching_language_keeps_the_readers_place(browser, base_url, width):
    """docs/assets/anchor.js: the other language's page opens at the section being read, its own anchor in the
    address (the headings' ids differ by language: the heading of the same rank); a cell's anchor as it is."""
    page = browser.new_page(viewport={"width": width, "height": 844})

    def switch(name: str, path: str, heading: str | None = None) -> None:
        page.locator(".md-header__option .md-select").hover()
        if heading:  # blocks above it may still be laid out after the first look: read it again, menu open
            read(heading)
        page.get_by_role("link", name=name).click()
        page.wait_for_url(f"**/{path}#*")
        page.wait_for_function(f"() => ({HEADINGS})().some(([, top]) => top >= 0)")  # laid out

    def read(heading: str) -> None:
        """Scroll to 40 px past ``heading``, as a reader of its section, until it stays there: the blocks above
        it, which content-visibility lays out only as they come near the screen, grow and push it down."""
        where = page.locator(f"[id='{heading}']")
        for _ in range(20):
            top = where.evaluate("h => { h.scrollIntoView(); scrollBy(0, 40); return h.getBoundingClientRect().top }")
            tops = []
            for _ in range(3):  # still there three looks in a row, 150 ms apart
                page.wait_for_timeout(150)
                tops.append(where.evaluate("h => h.getBoundingClientRect().top"))
            if tops == [top] * 3:
                return
        raise AssertionError(f"the heading {heading} kept moving")

    try:
        page.goto(f"{base_url}/tensors/reshaping/")
        english = page.evaluate(HEADINGS)
        rank = len(english) // 2
        read(english[rank][0])  # the section under heading `rank`
        switch("中文", "zh/tensors/reshaping/", english[rank][0])
        chinese = page.evaluate(HEADINGS)
        assert len(chinese) == len(english) and chinese[rank][0] != english[rank][0]
        assert page.url.endswith("#" + quote(chinese[rank][0])), page.url
        assert 0 <= chinese[rank][1] < 100, chinese[rank]  # the same section, at the top of the screen
        page.evaluate("window.scrollBy(0, 200)")  # a little further down, still in that section
        switch("English", "tensors/reshaping/")
        assert page.url.endswith(f"#{english[rank][0]}") and 0 <= page.evaluate(HEADINGS)[rank][1] < 100
        cell = "ex-devices-gpu-memory-accumulate-item"  # a cell's anchor: the same in both languages
        page.goto(f"{base_url}/devices/gpu-memory/#{cell}")
        page.wait_for_timeout(100)
        page.locator(".md-header__option .md-select").hover()
        page.get_by_role("link", name="中文").click()
        page.wait_for_url(f"**/zh/devices/gpu-memory/#{cell}")
    finally:
        page.close()


# -- requests: a reader's browser asks the site's own host and nothing else ------------------------


def test_a_new_reader_asks_nothing_of_any_host_but_the_site(browser, base_url):
    """A fresh session (no cache, no storage), through pages, search and a notebook view; and no request
    the site answers with an error (Material asked for a `sitemap.xml` beside each page's `hreflang` link)."""
    site, elsewhere, failed = urlsplit(base_url).netloc, [], []

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
        page.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
        for path in [
            "", "tensors/cat-and-stack/", "zh/devices/gpu-memory/", "notebooks/tensors/cat_and_stack/",
            "losses/kl-div/", "zh/losses/bce/",  # formulas: KaTeX and its fonts
            "zh/errors/cuda/", "changes/",
        ]:  # fmt: skip
            page.goto(f"{base_url}/{path}")
            page.wait_for_load_state("networkidle")
        search_queries.search(page, base_url, "zh/", "显存")
        page.wait_for_load_state("networkidle")
    finally:
        context.close()
    assert elsewhere == []
    assert failed == []


# -- the 404 page: GitHub Pages serves the root 404.html for every missing path ----------------------

SITE_PATH = site_base(search_queries.ROOT / "mkdocs.yml")  # /pytorch-tips/


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
    search_queries.open_search(page)
    assert f"{SITE_PATH}{lang}{found}" in search_queries.ask(page, query)[:3]  # the search of its language
    assert indexes == [f"{SITE_PATH}{lang}search/search_index.json"]
    page.keyboard.press("Escape")
    link = page.locator("article a", has_text=home)
    assert urlsplit(urljoin(page.url, link.get_attribute("href"))).path == f"{SITE_PATH}{lang}"
    link.click()
    page.wait_for_load_state()
    assert urlsplit(page.url).path == f"{SITE_PATH}{lang}"
    assert "404" not in page.locator("article h1").first.inner_text()


@pytest.mark.parametrize(
    ("lang", "typed", "nearest"),
    [
        ("", "training/pretrained-weight/", "training/pretrained-weights/"),  # a letter missing
        ("zh/", "traning/fine-tuning/", "training/fine-tuning/"),  # in the section's name
        ("", "training/compile/", "performance/compile/"),  # the page of another section
    ],
)
def test_a_mistyped_address_suggests_the_nearest_page_first(page, base_url, lang, typed, nearest):
    """docs/assets/nearest.js: the 404 page of the address's language lists its pages nearest to it."""
    page.goto(f"{base_url}{SITE_PATH}{lang}{typed}")
    first = page.locator("#mx-nearest a").first
    first.wait_for()
    assert urlsplit(urljoin(page.url, first.get_attribute("href"))).path == f"{SITE_PATH}{lang}{nearest}"
    assert page.locator("#mx-nearest li").count() <= 3


# the pages whose title holds the longest words, in both languages
LONG_TITLES = sorted(
    {
        path.relative_to(search_queries.ROOT / "docs").with_suffix("").as_posix()
        for path in (search_queries.ROOT / "docs").glob("*/*/*.md")
        if re.search(r"^# .*[A-Za-z_]{16}", path.read_text(encoding="utf-8"), re.M)
    }
)


@pytest.mark.parametrize("path", LONG_TITLES)
def test_a_phones_page_title_breaks_between_words_only(browser, base_url, path):
    """assets/site.css: at 390 px each Latin word of a page's title (WeightedRandomSampler) is on one line."""
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        lang, _, rest = path.partition("/")
        page.goto(f"{base_url}{SITE_PATH}{'' if lang == 'en' else 'zh/'}{rest.removesuffix('/index')}/")
        split = page.locator("article h1").first.evaluate(
            """h => {
                const found = [];
                const walker = document.createTreeWalker(h, NodeFilter.SHOW_TEXT);
                for (let node; (node = walker.nextNode()); ) {
                    for (const word of node.data.matchAll(/[A-Za-z_.()]{8,}/g)) {
                        const range = document.createRange();
                        range.setStart(node, word.index);
                        range.setEnd(node, word.index + word[0].length);
                        const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
                        if (lines.size > 1) found.push(word[0]);
                    }
                }
                return found;
            }"""
        )
        assert split == [], split
    finally:
        page.close()


# -- the home page: where to start --------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "asked", "found"),
    [("", "CUDA out of memory", "errors/cuda/"), ("zh/", "KL散度", "losses/kl-div/")],
)
def test_the_home_pages_first_phone_screen_asks_for_a_question_and_answers_it(browser, base_url, lang, asked, found):
    """docs/*/index.md and assets/ask.js: on a phone's first screen, the question field and the places most
    readers start from; what is typed there opens the site's search with it. Every section is listed."""
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.goto(f"{base_url}{SITE_PATH}{lang}")
        field = page.locator("#mx-ask-field")
        starts = page.locator(".mx-start a")
        assert starts.count() == 6
        for element in [field, *(starts.nth(i) for i in range(6))]:
            box = element.bounding_box()
            assert box is not None and box["y"] + box["height"] <= 844, (element, box)
        assert page.locator("label[for=mx-ask-field]").is_visible()
        sections = {urlsplit(a).path for a in page.locator(".md-tabs__link").evaluate_all("l => l.map(a => a.href)")}
        listed = {urlsplit(a).path for a in page.locator("article a").evaluate_all("l => l.map(a => a.href)")}
        assert sections - {f"{SITE_PATH}{lang}"} <= listed, sections - listed
        field.fill(asked)
        assert page.locator(".md-search__input").input_value() == asked
        assert f"{SITE_PATH}{lang}{found}" in search_queries.result_pages(page)[:3]
    finally:
        page.close()


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
    assert re.fullmatch(rf"{label}\d{{4}}-\d{{2}}-\d{{2}}", seen(fact).strip())


def test_the_exception_line_of_a_traceback_stands_out(page, base_url):
    page.goto(f"{base_url}/errors/training/")
    traceback = page.locator(".language-pytb").first
    style = "e => { const s = getComputedStyle(e); return [s.color, s.fontWeight] }"
    exception = traceback.locator(".gr").first.evaluate(style)
    message = traceback.locator(".gr + .n").first.evaluate(style)
    frame = traceback.locator(".gt").first.evaluate(style)  # "Traceback (most recent call last):"
    assert exception == message and exception[0] != frame[0] and int(exception[1]) >= 700 > int(frame[1])


# -- the torch picker: each output as the reader's release printed it ---------------------------



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
    assert cpu_releases(), "no CPU recordings of another torch release: the picker's tests would check nothing"


@pytest.mark.parametrize(("release", "folder"), cpu_releases())
@pytest.mark.parametrize(("lang", "name"), [("", "Outputs of torch"), ("zh/", "输出来自 torch")])
def test_picking_a_release_shows_what_it_printed_labelled_and_the_choice_stays(page, base_url, release, folder,
                                                                               lang, name):  # fmt: skip
    from playwright.sync_api import expect

    page.goto(f"{base_url}/{lang}")
    label = page.locator(VERSIONS)
    built = f"torch {BUILT_TORCH.split('+')[0]}"
    expect(label).to_have_text(built)
    assert f"torch {BUILT_TORCH}" in label.evaluate(SHOWN_OUTPUT)
    picker = page.get_by_role("combobox", name=name)  # a labelled <select> in the header
    expect(picker.locator("xpath=ancestor::header")).to_have_count(1)  # the picker comes with environments.json
    picker.select_option(folder.name)  # each choice is named by the environment it shows
    named = release_label(folder, lang.rstrip("/") or "en")  # a CUDA build without a GPU says so at the output
    expect(label).to_have_text(named)
    recorded = _recorded(folder, "check_install.py", "versions")
    assert _shown(label, lambda out: out == recorded) and f"torch {BUILT_TORCH}" not in recorded
    page.reload()  # remembered
    expect(label).to_have_text(named)
    assert label.evaluate(SHOWN_OUTPUT) == recorded and picker.input_value() == folder.name
    page.goto(f"{base_url}/{lang}tensors/cat-and-stack/")  # and on every other page
    expect(page.locator('.mx-provenance[data-mx-device="cpu"]').first).to_contain_text(f"torch {release}")
    assert picker.input_value() == folder.name
    page.go_back()
    picker.select_option("build")  # the build's own release: the page as built
    expect(label).to_have_text(built)
    assert _shown(label, lambda out: f"torch {BUILT_TORCH}" in out)


def test_the_latest_choice_wins_over_one_whose_outputs_still_load(page, base_url):
    from playwright.sync_api import expect

    _, folder = cpu_releases()[0]
    held = []  # the picked release's outputs, held back until the reader has picked again
    page.route("**/outputs/examples/**", lambda route: held.append(route))
    page.goto(f"{base_url}/")
    label = page.locator(VERSIONS)
    picker = page.get_by_role("combobox", name="Outputs of torch")
    picker.select_option(folder.name)
    while not held:
        page.wait_for_timeout(50)
    picker.select_option("build")  # picked again before the first choice's outputs came
    expect(label).to_have_text(f"torch {BUILT_TORCH.split('+')[0]}")
    for route in held:
        route.continue_()
    page.unroute("**/outputs/examples/**")
    page.wait_for_load_state("networkidle")  # the first choice's outputs have come, and show nothing
    expect(label).to_have_text(f"torch {BUILT_TORCH.split('+')[0]}")
    assert f"torch {BUILT_TORCH}" in label.evaluate(SHOWN_OUTPUT) and picker.input_value() == "build"


def _shown(label, wanted, seconds: float = 5.0) -> bool:
    """Whether the output above ``label`` comes to be what ``wanted`` accepts within ``seconds``: the picker
    swaps the label and the output in turn, and a loaded machine may read between the two."""
    deadline = time.monotonic() + seconds
    while not wanted(out := label.evaluate(SHOWN_OUTPUT)):
        if time.monotonic() > deadline:
            print(out)
            return False
        label.page.wait_for_timeout(100)
    return True


def test_a_cell_only_a_gpu_ran_keeps_its_gpus_output_whatever_the_release(page, base_url):
    from playwright.sync_api import expect

    page.goto(f"{base_url}/devices/gpu-memory/")
    cuda = page.locator('.mx-provenance[data-mx-device="cuda"]:visible')  # not those in a CPU | CUDA tab set
    assert cuda.count() > 0
    before = [seen(cuda.nth(i)) for i in range(cuda.count())]
    outputs = [cuda.nth(i).evaluate(SHOWN_OUTPUT) for i in range(cuda.count())]
    assert all("torch" in text and "CPU" not in text for text in before), before
    for release, folder in cpu_releases():
        page.get_by_role("combobox", name="Outputs of torch").select_option(folder.name)
        expect(page.locator('.mx-provenance[data-mx-device="cpu"]').first).to_contain_text(release)  # applied
        after = [seen(cuda.nth(i)) for i in range(cuda.count())]
        assert all(a.startswith(b) for a, b in zip(after, before, strict=True)), after
        # the GPU's own release shows its output as it is; any other says that release was not recorded there
        assert all(a == b if f"torch {release}" in b else a.endswith(f"(not recorded on CUDA with torch {release})")
                   for a, b in zip(after, before, strict=True)), after  # fmt: skip
        assert [cuda.nth(i).evaluate(SHOWN_OUTPUT) for i in range(cuda.count())] == outputs


def test_each_choice_names_its_release_and_device_and_no_two_read_alike(page, base_url):
    """One choice per environment: each says its device (a GPU's model), and its Python where it is not the build's,
    so that of a release recorded in several each shows exactly what it says."""
    from playwright.sync_api import expect

    page.goto(f"{base_url}/")
    picker = page.get_by_role("combobox", name="Outputs of torch")
    expect(picker.locator("option").nth(1)).to_be_attached()  # the options come with environments.json
    labels = {o.get_attribute("value"): o.inner_text() for o in picker.locator("option").all()}
    assert len(set(labels.values())) == len(labels), labels
    # on the build's device and Python: its release alone, and that its build is for CUDA, where it is
    cpu = {folder.name: release_label(folder).removeprefix("torch ") for _, folder in cpu_releases()}
    assert all(labels[key] == named for key, named in cpu.items()), labels
    assert any(labels[key].endswith(NO_GPU["en"]) for key in cpu), labels  # PyPI's wheels: CUDA builds
    for key, text in labels.items():  # a GPU's choice names its model: the H200 of "NVIDIA H200"
        if key.startswith("cuda-"):
            gpu = json.loads((ROOT / "recordings" / key / "environment.json").read_text())["gpu"]
            assert f" · {gpu.removeprefix('NVIDIA ').split()[0]}" in text, labels


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("lang", "name"), [("", "PyTorch Tips"), ("zh/", "PyTorch 实用技巧")])
def test_a_phones_header_shows_the_sites_name(browser, base_url, lang, name, scheme):
    """At 390 px the header holds the menu, the site's name, the palette, the languages and the search;
    the torch picker goes above the page's title (mkdocs_examples_picker.js), and back into the header
    on a wide screen."""
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 390, "height": 844}, color_scheme=scheme)
    try:
        page.goto(f"{base_url}/{lang}")
        picker = page.locator(".mx-picker")
        expect(picker).to_have_count(1)
        assert picker.evaluate("e => e.nextElementSibling.tagName") == "H1"
        assert page.locator(".md-header .mx-picker").count() == 0
        title = page.locator(".md-header__topic .md-ellipsis").first
        assert title.inner_text() == name
        box = title.evaluate("e => [e.clientWidth, e.scrollWidth, e.getBoundingClientRect().right]")
        assert 0 < box[1] <= box[0] and box[2] <= 390, box  # the whole name, on the screen
        page.set_viewport_size({"width": 1280, "height": 900})
        expect(page.locator(".md-header .mx-picker")).to_have_count(1)
    finally:
        page.close()


@pytest.mark.parametrize("width", [960, 1024, 1219, 1280])
@pytest.mark.parametrize(("lang", "name"), [("", "PyTorch Tips"), ("zh/", "PyTorch 实用技巧")])
def test_a_wide_header_shows_the_sites_whole_name_beside_the_picker(browser, base_url, lang, name, width):
    """From 60em on, the torch picker is in the header (mkdocs_examples_picker.js); below 76.25em the repository's
    link is its icon there (site.css), still named for a screen reader, so that the site's name fits whole."""
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": width, "height": 800})
    try:
        page.goto(f"{base_url}/{lang}errors/cuda/")
        expect(page.locator(".md-header .mx-picker")).to_have_count(1)
        title = page.locator(".md-header__topic .md-ellipsis").first
        assert title.inner_text() == name
        box = title.evaluate("e => [e.clientWidth, e.scrollWidth]")
        assert 0 < box[1] <= box[0], box  # the whole name, no ellipsis
        expect(page.get_by_role("link", name="pytorch-tips/pytorch-tips")).to_be_visible()
    finally:
        page.close()


def test_without_javascript_a_page_shows_the_builds_outputs_and_no_picker(browser, base_url):
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{base_url}/")
        label = page.locator(VERSIONS)
        # below the home page's first blocks, which content-visibility lays out only near the screen: its text
        assert " ".join(label.text_content().split()) == f"torch {BUILT_TORCH.split('+')[0]}"
        output = label.locator("xpath=../preceding-sibling::*[1]").text_content()
        assert f"torch {BUILT_TORCH}" in output
        assert page.locator(".mx-picker").count() == 0
        sources = seen(page.locator(".mx-sources"))
        assert f"a CPU with PyTorch {BUILT_TORCH} (Python {platform.python_version()})" in sources
    finally:
        context.close()



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


@pytest.mark.parametrize(("lang", "words"), [("", "Take it away:"), ("zh/", "下载本示例：")])
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


# -- the menu, the keyboard, the notebook views ------------------------------------------------


@pytest.mark.parametrize("lang", ["", "zh/"])
def test_a_phones_menu_opens_a_section_in_place(browser, base_url, lang):
    """On a phone the menu lists every section; a section's chevron shows its pages there, as Material's own
    documentation does, and leaves the reader on the page."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        page.goto(f"{base_url}/{lang}tensors/reshaping/")
        page.locator("label.md-header__button[for=__drawer]").tap()
        page.locator(".md-nav--primary > .md-nav__title").first.wait_for()
        back = page.locator(".md-nav--primary .md-nav__item--active > .md-nav > .md-nav__title").first
        back.tap()  # from the reader's section up to the list of sections
        chevron = page.locator(".md-nav--primary > .md-nav__list > .md-nav__item--nested").nth(3)
        chevron = chevron.locator("label.md-nav__link")
        chevron.tap()
        pages = page.locator(".md-nav--primary > .md-nav__list > .md-nav__item--nested").nth(3)
        pages = pages.locator("> .md-nav .md-nav__list a.md-nav__link")
        pages.first.wait_for(state="visible")
        assert pages.count() > 2
        assert page.url == f"{base_url}/{lang}tensors/reshaping/"
    finally:
        page.close()


@pytest.mark.parametrize("lang", ["", "zh/"])
def test_the_keyboard_lands_only_on_what_is_shown(browser, base_url, lang):
    """From the top of a page through the header and tabs, each tab stop is drawn: the search's results are none
    while the search is closed (site.css), and one again once it is open."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    focused = """() => { const e = document.activeElement, box = e.getBoundingClientRect();
        return [e.tagName + '.' + e.className, box.width, box.height]; }"""
    try:
        page.goto(f"{base_url}/{lang}tensors/reshaping/")
        stops = []
        for _ in range(14):
            page.keyboard.press("Tab")
            stops.append(page.evaluate(focused))
        assert any("md-tabs__link" in name for name, _, _ in stops), stops  # the header passed
        assert all(width > 0 and height > 0 for _, width, height in stops if "md-option" not in _), stops
        search_queries.open_search(page)
        page.keyboard.type("tensor")
        page.locator(".md-search-result__item").first.wait_for()
        assert page.locator(".md-search__scrollwrap").evaluate("e => getComputedStyle(e).visibility") == "visible"
    finally:
        page.close()


@pytest.mark.parametrize("lang", ["", "zh/"])
def test_a_notebook_views_blocks_have_copy_buttons(browser, base_url, lang):
    """publish/notebook_views.py: each cell's code and output is a <code> in its <pre>, which Material mounts as it
    comes on screen with its copy button, as on the site's pages; the button copies that block."""
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.goto(f"{base_url}/{lang}notebooks/tensors/cat_and_stack/")
        blocks = page.locator(".jupyter-wrapper pre > code")
        assert blocks.count() > 5
        for block in blocks.all():
            block.scroll_into_view_if_needed()
            button = block.locator("xpath=..").locator(".md-code__button")
            button.wait_for(state="attached")
            target = button.get_attribute("data-clipboard-target")
            assert page.locator(target).evaluate("(e, code) => e === code", block.element_handle())
    finally:
        page.close()
