"""The changes page on a phone: a line per release and per page, each opening what it stands for (a page's
changed cells, each opening its diffs), so that a reader scans it in a few screens; a diff's words whole.

Measured in headless Chromium at 390 x 844 on the real site, in both languages.
"""

from __future__ import annotations

import pytest

PHONE = {"width": 390, "height": 844}
MOST = 10 * PHONE["height"]  # px at a phone's width, every line closed: under ten screens
# px of the behaviour changes above them: a sentence each, in seven screens at most (one per declared check
# that holds on some releases only, the list grows with the declarations)
BEHAVIOUR = 7 * PHONE["height"]
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
    # first the behaviour changes, a sentence each (test_browser_readers.py), in a few screens of their own
    behaviour = page.evaluate("document.querySelectorAll('article h2')[1].getBoundingClientRect().top + scrollY")
    assert behaviour < BEHAVIOUR, f"{behaviour} px of behaviour changes at 390 px"
    # then a line per release and per page, under its page's heading: scanned in a few screens of a phone
    rest = height - behaviour
    assert rest < MOST, f"{rest} px at 390 px below the behaviour changes, every line closed"
    headings = page.locator("article h3:has(a:not(.headerlink))").count()  # a page's, titled by its link
    assert page.locator("article h3 + details.mx-changes").count() == headings > 10  # each heading has its line
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
