"""Deep links land on their target: the error index's and the changes page's links to a cell.

Blocks are laid out only as they come near the screen (content-visibility in docs/assets/site.css,
Material's content.lazy), so the blocks above a target grow after the browser has scrolled to it;
docs/assets/anchor.js keeps the target in place until the page settles. Each page is opened afresh, as
a reader's click does, and measured after 1.2 s: the target's top within the first screen, below the
header. Per target page, the link to its deepest cell (the one most blocks above can push) is opened,
at a phone's width and a desktop's, in both languages.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

LISTS = ("errors/all/", "changes/")
WIDTHS = {"phone": (390, 844), "desktop": (1280, 900)}
MEASURE = """id => {
  const target = document.getElementById(id)
  if (!target) return null
  return [target.getBoundingClientRect().top, document.querySelector('.md-header').getBoundingClientRect().bottom]
}"""


def deepest_links(site: Path, lang: str) -> list[str]:
    """The paths#ids the lists of ``lang`` link to, one per target page: the one furthest down it."""
    prefix = "" if lang == "en" else f"{lang}/"
    deepest: dict[str, tuple[int, str]] = {}
    for listing in LISTS:
        html = (site / prefix / listing / "index.html").read_text(encoding="utf-8")
        article = html.split("<article", 1)[1]
        for href in re.findall(r'<a href="([^"#]*#[^"]+)"', article):
            url = urljoin(f"/{prefix}{listing}", href)
            path, _, anchor = url.partition("#")
            target = (site / path.lstrip("/") / "index.html").read_text(encoding="utf-8")
            where = target.find(f'id="{anchor}"')
            assert where >= 0, f"{listing} of {lang} links to {url}, which is not on that page"
            if where > deepest.get(path, (-1, ""))[0]:
                deepest[path] = (where, url)
    return sorted(url for _, url in deepest.values())


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_link_to_a_cell_lands_it_on_the_first_screen_below_the_header(browser, base_url, real_site, lang, width):
    links = deepest_links(real_site[0], lang)
    assert len(links) >= 20  # the lists link to most pages of the site
    size = WIDTHS[width]
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    off = []
    for url in links:
        page.goto("about:blank")
        page.goto(base_url + url)
        page.wait_for_timeout(1200)
        top, header = page.evaluate(MEASURE, urlsplit(url).fragment) or (None, None)
        if top is None or not header - 2 <= top <= size[1] - 40:
            off.append(f"{url}: top {top} (header ends at {header})")
    page.close()
    assert not off, f"{len(off)} of {len(links)} links land off their target:\n" + "\n".join(off)
