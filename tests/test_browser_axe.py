"""Accessibility of the built site in headless Chromium: axe-core on pages of both languages, light and
dark, before and after a release is picked; the dark palette; keyboard focus."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import cpu_releases

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"  # README.md there: version, licence
AXE_PAGES = [  # the home page, a page of each kind: code and outputs, tab sets, tracebacks, tables, links
    "",
    "tensors/cat-and-stack/",
    "autograd/detach-and-data/",
    "devices/gpu-memory/",
    "errors/training/",
    "losses/kl-div/",
    "glossary/",
    "changes/",  # its diffs: raw HTML of the engine's own, not code blocks
    "notebooks/errors/cuda_errors/",  # a notebook view: mkdocs-jupyter's HTML, not Material's code blocks
]


@pytest.fixture(scope="module")
def axe_source() -> str:
    return AXE.read_text(encoding="utf-8")


# AXE_CSP: axe-core goes into the page as an inline script, which the site's policy refuses to run
# (overrides/main.html); the tabs that run it let Playwright's own scripts past the policy
AXE_RUN = """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
    .filter(v => v.impact === "critical" || v.impact === "serious")
    .map(v => ({rule: v.id, impact: v.impact, nodes: v.nodes.length,
                first: v.nodes.slice(0, 3).map(n => n.target.join(" ") + ": " + n.failureSummary)}))"""
# Every block as a reader sees it once it is on screen: site.css leaves the code blocks and the article's later
# blocks off screen unstyled until they come near (`content-visibility: auto`), and axe would read their colours
# from before a palette toggle
ON_SCREEN = ".md-typeset .highlight, .md-content__inner > * { content-visibility: visible !important; }"


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("lang", ["", "zh/"])
@pytest.mark.parametrize("path", AXE_PAGES)
def test_axe_finds_no_critical_or_serious_violation(browser, base_url, axe_source, path, lang, width):
    """WCAG 2 A and AA and axe's best practices, light and dark: a reader whose system prefers light, then
    the same page after the header's toggle, as Material's palette with `prefers-color-scheme: dark` shows it;
    on a desktop's screen and on a phone's, where the navigation is a drawer and the header holds less."""
    viewport = {"width": width, "height": 900 if width > 600 else 844}
    page = browser.new_page(viewport=viewport, color_scheme="light", bypass_csp=True)  # AXE_CSP
    violations = {}
    try:
        page.goto(f"{base_url}/{lang}{path}")
        page.wait_for_function("() => !document.querySelector('.arithmatex:not(:has(.katex))')")  # as KaTeX drew
        page.add_style_tag(content=ON_SCREEN)
        page.add_script_tag(content=axe_source)
        for scheme, palette in (("light", "default"), ("dark", "slate")):
            if scheme == "dark":
                page.locator("form[data-palette] label:visible").first.click()
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
                page.locator("form[data-palette] label:visible").first.click()
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


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", ["", "zh/devices/gpu-memory/"])
def test_axe_finds_no_critical_or_serious_violation_once_a_release_is_picked(browser, base_url, axe_source, path,
                                                                              scheme):  # fmt: skip
    """The picker's outputs and labels, as axe sees them after a reader picked another release."""
    from playwright.sync_api import expect

    release, folder = cpu_releases()[0]
    page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme=scheme, bypass_csp=True)  # AXE_CSP
    try:
        page.goto(f"{base_url}/{path}")
        page.locator("select.mx-picker__select").select_option(folder.name)  # a choice is named by its environment
        expect(page.locator('.mx-provenance[data-mx-device="cpu"]').first).to_contain_text(release)
        page.add_style_tag(content=ON_SCREEN)
        page.add_script_tag(content=axe_source)
        violations = page.evaluate(AXE_RUN)
    finally:
        page.close()
    assert violations == [], violations


@pytest.mark.parametrize(("lang", "section"), [("", "Tensors"), ("zh/", "张量")])
def test_a_sections_navigation_is_named_by_its_title(page, base_url, lang, section):
    """A section with an index page: Material names its nav by the toggle beside the index's link, an icon
    alone, so the nav had no name (axe: landmark-unique); overrides/partials/nav-item.html puts the title in.
    Every section's nav is on every page (the menu opens a section in place), each named by its own title."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{base_url}/{lang}tensors/cat-and-stack/")
    navs = page.locator('nav[data-md-level="1"]')
    names = [navs.nth(i).get_attribute("aria-labelledby") for i in range(navs.count())]
    assert navs.count() > 1 and len(set(names)) == len(names) and all(names), names
    assert page.get_by_role("navigation", name=section, exact=True, include_hidden=True).count() == 1
