"""Deep links land on their target: the error index's and the changes page's links to a cell.

Blocks are laid out only as they come near the screen (content-visibility in docs/assets/site.css, Material's
content.lazy), so the blocks above a target grow after the browser has scrolled to it; docs/assets/anchor.js
keeps the target in place until the page settles. Each page is opened afresh, as a reader's click does, in one
of several tabs open side by side, and measured at least 1.2 s later: the target's top within the first
screen, below the header. Per target page, the link to its deepest cell (the one most blocks above can push)
is opened, and a fresh random sample of the other links on each run (ANCHOR_SEED=N picks the sample a failure
names), at a phone's width and a desktop's, in both languages.
"""

from __future__ import annotations

import os
import random
import re
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

LISTS = ("errors/all/", "changes/")
SAMPLE = 25  # links besides the deepest ones, per language: 50 in all, each at both widths
AT_ONCE = 6  # pages open side by side, each in a tab of its own
SEED = int(os.environ.get("ANCHOR_SEED") or random.SystemRandom().randrange(2**32))
WIDTHS = {"phone": (390, 844), "desktop": (1280, 900)}
MEASURE = """id => {
  const target = document.getElementById(id)
  if (!target) return null
  return [target.getBoundingClientRect().top, document.querySelector('.md-header').getBoundingClientRect().bottom]
}"""


def links_of(site: Path, lang: str) -> tuple[list[str], list[str]]:
    """The paths#ids the lists of ``lang`` link to: one per target page, the one furthest down it; and the others."""
    prefix = "" if lang == "en" else f"{lang}/"
    every: set[str] = set()
    deepest: dict[str, tuple[int, str]] = {}
    for listing in LISTS:
        html = (site / prefix / listing / "index.html").read_text(encoding="utf-8")
        article = html.split("<article", 1)[1]
        for href in re.findall(r'<a href="([^"#]*#[^"]+)"', article):
            url = urljoin(f"/{prefix}{listing}", href)
            if urlsplit(url).netloc:  # a link off the site: the lists also point at PyTorch's documentation
                continue
            path, _, anchor = url.partition("#")
            target = (site / path.lstrip("/") / "index.html").read_text(encoding="utf-8")
            where = target.find(f'id="{anchor}"')
            assert where >= 0, f"{listing} of {lang} links to {url}, which is not on that page"
            every.add(url)
            if where > deepest.get(path, (-1, ""))[0]:
                deepest[path] = (where, url)
    chosen = sorted(url for _, url in deepest.values())
    return chosen, sorted(every - set(chosen))


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_link_to_a_cell_lands_it_on_the_first_screen_below_the_header(browser, base_url, real_site, lang, width):
    deepest, others = links_of(real_site[0], lang)
    assert len(deepest) >= 20 and len(others) >= SAMPLE  # the lists link to most pages of the site, some cells each
    links = deepest + random.Random(f"{SEED} {lang}").sample(others, SAMPLE)
    size = WIDTHS[width]
    pages = [browser.new_page(viewport={"width": size[0], "height": size[1]}) for _ in range(AT_ONCE)]
    off = []
    for start in range(0, len(links), AT_ONCE):  # a page mostly waits to settle: several wait at once
        batch = list(zip(pages, links[start : start + AT_ONCE], strict=False))
        for page, url in batch:
            page.goto("about:blank")
            page.goto(base_url + url)
        batch[-1][0].wait_for_timeout(1200)  # each page measured at least 1.2 s after it loaded
        for page, url in batch:
            top, header = page.evaluate(MEASURE, urlsplit(url).fragment) or (None, None)
            if top is None or not header - 2 <= top <= size[1] - 40:
                off.append(f"{url}: top {top} (header ends at {header})")
    for page in pages:
        page.close()
    assert not off, (f"{len(off)} of {len(links)} links land off their target (the sample of ANCHOR_SEED={SEED}):\n"
                     + "\n".join(off))  # fmt: skip
