"""The changes page on a phone: a line per release and per page, each opening what it stands for (a page's
changed cells, each opening its diffs), so that a reader scans it in a few screens, a line more for each page
that changes; a diff's words whole.

Measured in headless Chromium at 390 x 844 on the real site, in both languages.
"""

from __future__ import annotations

import pytest

PHONE = {"width": 390, "height": 844}
# The page grows a line with each behaviour change the site sees and with each page whose outputs change: what
# stays put is how tall each line is at a phone's width, every line closed. A sentence, its share of its release's
# heading included, within five lines of text; a page's line (its title and what changes there) within four.
SENTENCE = 140  # px
PAGE_LINE = 120  # px
# Where each of the page's parts starts (its h2), px from the top
TOPS = "[...document.querySelectorAll('article h2')].map(h => h.getBoundingClientRect().top + scrollY)"
# Every block laid out, as a reader who scrolls to the end sees it (site.css lays out a block only near the screen)
LAID_OUT = "*{content-visibility: visible !important}"
# How many folded blocks the deepest diff or link to a cell lies in: the clicks that open it
DEEPEST = """() => Math.max(...[...document.querySelectorAll('pre.mx-diff, article a[href*="#ex-"]')].map(e => {
  let n = 0
  for (let d = e.closest('details'); d; d = d.parentElement.closest('details')) n++
  return n
}))"""
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
def test_the_changes_page_on_a_phone_is_a_few_screens_of_lines_each_opening_what_it_stands_for(browser, base_url, lang):
    page = browser.new_page(viewport=PHONE)
    page.goto(f"{base_url}/" + ("" if lang == "en" else "zh/") + "changes/")
    page.add_style_tag(content=LAID_OUT)
    height = page.evaluate("document.documentElement.scrollHeight")
    cells = page.locator("details.mx-change").count()
    assert cells > 20 and not page.locator("details[open]").count()  # each line opened on demand
    tops = page.evaluate(TOPS)
    # first the behaviour changes, a sentence each (test_browser_readers.py)
    sentences = page.locator("article h2 ~ ul li").count()
    assert sentences > 10 and tops[1] - tops[0] < sentences * SENTENCE, f"{tops[1] - tops[0]} px, {sentences} sentences"
    # then a line per release (In short), then a line per page, titled by the page: where the summary's links lead
    lines = page.locator("details.mx-changes--page")
    assert lines.count() > 10 and lines.count() == page.locator("details.mx-changes--page[id] > summary strong").count()
    assert page.locator("article h2 ~ details a[href^='#changes-']").count() >= lines.count()
    assert tops[3] - tops[2] < lines.count() * PAGE_LINE, f"{tops[3] - tops[2]} px, {lines.count()} page lines"
    # every change one or two clicks away: a cell's diffs open inside its page's line, no deeper
    assert page.evaluate(DEEPEST) == 2
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true })")
    opened = page.evaluate("document.documentElement.scrollHeight")
    assert height < opened / 4, f"{height} px, {opened} px with every line open"  # the diffs are most of the page
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
