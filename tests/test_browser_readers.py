"""What a reader sees of the site's own words about its examples, in headless Chromium on the real site: the checks
line at a page's end, the first phone screen of the changes page and of the error index, and "Report a problem".
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
# The text of the first screen: what lies in the article above the screen's bottom
FIRST_SCREEN = """() => {
  const bottom = window.innerHeight
  const seen = []
  const walker = document.createTreeWalker(document.querySelector("article"), NodeFilter.SHOW_TEXT)
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const range = document.createRange()
    range.selectNodeContents(node)
    const rect = range.getBoundingClientRect()
    if (rect.height && rect.top < bottom && node.data.trim()) seen.push(node.data.trim())
  }
  return seen.join(" ")
}"""


@pytest.mark.parametrize(("lang", "heading"), [("", "What changed in behaviour"), ("zh/", "行为变化")])
def test_the_changes_pages_first_phone_screen_names_behaviour_changes_in_words(browser, base_url, lang, heading):
    page = browser.new_page(viewport=PHONE)
    page.goto(f"{base_url}/{lang}changes/")
    seen = page.evaluate(FIRST_SCREEN)
    assert heading in seen, seen
    # sentences of behaviour, each a link to the cell that shows it, before any count, diff or method text
    links = page.locator("article h2 ~ ul a[href*='#ex-']")
    first = links.first.bounding_box()
    assert links.count() > 20 and first is not None and first["y"] + first["height"] < PHONE["height"]
    assert len(links.first.inner_text()) > 25  # a sentence, not a name
    for method in ("outputs change on", "Compared", "的输出有变化", "参与比较", "Timings", "计时"):
        assert method not in seen, method
    # what the line stands for is the cell: followed, the page opens on it
    target = links.first.get_attribute("href")
    links.first.click()
    page.wait_for_load_state()
    assert page.url.endswith(target.split("/")[-1]) and "#ex-" in page.url
    page.close()


@pytest.mark.parametrize("lang", ["", "zh/"])
def test_the_error_index_opens_with_its_entries_on_a_phone(browser, base_url, lang):
    page = browser.new_page(viewport=PHONE)
    page.goto(f"{base_url}/{lang}errors/all/")
    first_entry = page.locator("article h2").first.bounding_box()
    assert first_entry is not None and first_entry["y"] < PHONE["height"] / 2, first_entry  # the top half
    assert page.locator("article h2").last.inner_text().startswith(("How this list is made", "这份列表是怎样生成的"))
    page.close()


@pytest.mark.parametrize(("lang", "summary"), [("", "For contributors"), ("zh/", "给贡献者")])
def test_the_checks_line_links_to_its_cell_and_folds_what_contributors_need(browser, base_url, lang, summary):
    page = browser.new_page(viewport=PHONE)
    page.goto(f"{base_url}/{lang}modules/state-dict/")
    line = page.locator("p.mx-checked")
    line.scroll_into_view_if_needed()
    # laid out a frame after it comes on screen (site.css: content-visibility), and only then has inner text
    expect(line).to_contain_text("torch 2.4", use_inner_text=True)
    said = line.inner_text()
    for detail in ("examples/", "state_dict.py", "AssertionError", "no-exception", "+cu"):
        assert detail not in said, detail
    box = page.locator("details.mx-checked-more")
    box.scroll_into_view_if_needed()
    expect(box.locator("summary")).to_have_text(summary, use_inner_text=True)
    assert not box.get_attribute("open")
    assert not box.locator("code").first.is_visible()  # folded
    box.locator("summary").click()
    assert box.locator("code", has_text="examples/modules/state_dict.py").first.is_visible()
    assert "2.4.1+cu121" in box.inner_text()
    # the claim about the cell, named (another claim may link to the same cell)
    link = line.locator("a[href='#ex-modules-state-dict-whole-model']", has_text="weights_only=True")
    assert "torch.load" in link.inner_text()
    link.click()
    cell = page.locator("#ex-modules-state-dict-whole-model + div pre, #ex-modules-state-dict-whole-model ~ * pre")
    # the reader lands on the cell, once the page's smooth scroll up to it has settled
    expect(cell.first).to_be_in_viewport()
    page.close()


def _report(page) -> tuple[str, str]:
    """The title and body of the issue the page's "Report a problem" opens, as the reader follows it."""
    link = page.locator("p.mx-report a")
    link.focus()  # the page puts in what the reader picked as the link is followed (docs/assets/report.js)
    url = urlsplit(link.get_attribute("href"))
    query = parse_qs(url.query)
    assert url.netloc == "github.com" and url.path.endswith("/issues/new")
    return query["title"][0], query["body"][0]


@pytest.mark.parametrize(
    ("lang", "title", "said"),
    [("", "Problem on: What state_dict() holds", "Language: English"), ("zh/", "页面问题：", "语言：中文")],
)
def test_report_a_problem_opens_an_issue_naming_the_page_its_language_the_release_and_the_cell(
    browser, base_url, lang, title, said
):  # fmt: skip
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{base_url}/{lang}modules/state-dict/")
    # the picker is built once outputs/environments.json has come; until then the link says "as built"
    page.locator(".mx-picker__select").wait_for()
    told, body = _report(page)
    assert told.startswith(title) and said in body
    assert f"pytorch-tips/{lang}modules/state-dict/\n" in body  # the page, as the site's address names it
    assert re.search(r"(Outputs of torch: |输出来自 torch：)2\.13\.0", body), body  # the picker's default
    assert re.search(r"(Cell: none|代码单元：无)", body), body
    # a reader who picked a release and came to a cell: both named
    picker = page.locator(".mx-picker__select")
    picker.select_option("cpu-torch2.4.1-py3.11")
    page.goto(f"{base_url}/{lang}modules/state-dict/#ex-modules-state-dict-whole-model")
    page.reload()
    _, body = _report(page)
    assert "2.4.1" in body and "#ex-modules-state-dict-whole-model" in body, body
    assert "modules/state-dict/#ex-modules-state-dict-whole-model\n" in body
    page.close()


def test_report_a_problem_works_without_javascript(browser, base_url):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{base_url}/errors/all/")
    href = page.locator("p.mx-report a").get_attribute("href")
    body = parse_qs(urlsplit(href).query)["body"][0]
    assert "Outputs of torch: as built (the default)" in body and "Cell: none" in body
    context.close()
