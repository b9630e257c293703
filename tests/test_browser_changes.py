"""The changes page on a phone: a summary and a line per changed cell, each diff opened on demand, its words
whole.

Measured in headless Chromium at 390 x 844 on the real site, in both languages.
"""

from __future__ import annotations

import pytest

PHONE = {"width": 390, "height": 844}
# Every block laid out, as a reader who scrolls to the end sees it (site.css lays out a block only near the screen)
LAID_OUT = "*{content-visibility: visible !important}"
# Words (names, as `sourceTensor` or `Mismatching`) of a diff's lines that a line break splits although they would
# fit on a line of their own: a line may wrap after a hyphen or before a bracket, as text does, never inside a name
SPLIT = """() => {
  const split = []
  for (const pre of document.querySelectorAll('pre.mx-diff')) {
    const width = pre.clientWidth - parseFloat(getComputedStyle(pre).paddingLeft) * 2
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.data.matchAll(/\\w+/g)) {
        const range = document.createRange()
        range.setStart(node, word.index)
        range.setEnd(node, word.index + word[0].length)
        const rects = [...range.getClientRects()].filter(r => r.width > 0)
        const wide = rects.reduce((sum, r) => sum + r.width, 0)
        if (rects.length > 1 && wide < width - 2) split.push(word[0])
      }
    }
  }
  return split
}"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_changes_page_on_a_phone_is_a_summary_and_a_line_per_cell(browser, base_url, lang):
    page = browser.new_page(viewport=PHONE)
    page.goto(f"{base_url}/" + ("" if lang == "en" else "zh/") + "changes/")
    page.add_style_tag(content=LAID_OUT)
    height = page.evaluate("document.documentElement.scrollHeight")
    cells = page.locator("details.mx-change").count()
    assert cells > 20 and not page.locator("details.mx-change[open]").count()  # each diff opened on demand
    page.evaluate("document.querySelectorAll('details.mx-change').forEach(d => { d.open = true })")
    opened = page.evaluate("document.documentElement.scrollHeight")
    # the summary, and per page a heading, a line per changed cell and its checks: the diffs are most of the page
    assert height < opened / 2, f"{height} px, {opened} px with every diff open"
    page.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_diffs_lines_wrap_between_words_not_inside_them(browser, base_url, lang):
    page = browser.new_page(viewport=PHONE)
    page.goto(f"{base_url}/" + ("" if lang == "en" else "zh/") + "changes/")
    page.add_style_tag(content=LAID_OUT)
    page.evaluate("document.querySelectorAll('details.mx-change').forEach(d => { d.open = true })")
    assert page.locator("pre.mx-diff").count() > 20
    split = page.evaluate(SPLIT)
    page.close()
    assert not split, f"{len(split)} words split across lines, e.g. {split[:5]}"
