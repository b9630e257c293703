"""What a reader on a phone waits for: the bytes of a page before search, and the search's first result.

    .venv/bin/python tools/search_timing.py [SITE] [--page PATH ...] [--query Q]

In Chromium under Lighthouse's mobile throttling (its `mobileSlow4G`: 150 ms round trips, 1.6 Mbit/s
down, 750 kbit/s up, and the CPU four times slower), with the site served gzipped as GitHub Pages
serves it (tools/pages_server.py), for each page (the home page of each language by default):

- the bytes transferred until the page is loaded and the network idle, but for the search index;
- the bytes and the time the search costs: the language's index, fetched when the browser is idle after the
  load or when the reader goes to the search (examples-search's search_assets/input.js), and the time from
  the reader focusing the search box until the search worker has it built;
- the time from typing the query (the whole query at once, as a paste) to its first result shown,
  with the index loaded, and from a query typed at once on focusing the box (the index fetched and
  built meanwhile).

`make lighthouse` runs it after Lighthouse; it exits 1 if a page transfers more than BYTES_BEFORE_SEARCH
or a first result comes later than FIRST_RESULT_MS.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

from links import site_base  # tools/links.py
from pages_server import served  # tools/pages_server.py
from search_queries import ARGS, chromium, home, open_phone_search  # tools/search_queries.py

ROOT = Path(__file__).resolve().parent.parent
BYTES_BEFORE_SEARCH = 400_000
FIRST_RESULT_MS = 300
# Lighthouse's mobile settings (its constants.js: throttling.mobileSlow4G, screenEmulation.mobile)
CPU_SLOWDOWN = 4
KBIT = 1024 / 8  # bytes per second
NETWORK = {"offline": False, "latency": 150, "downloadThroughput": 1638.4 * KBIT, "uploadThroughput": 750 * KBIT}
VIEWPORT = {"width": 412, "height": 823}
# Each page is measured REPEAT times, in a new browser context each (a reader's first search: nothing
# cached, no code compiled yet), and the fastest counts: on a shared machine the slower ones measure
# the other processes too (the median is printed beside it)
REPEAT = 3
QUERIES = {"": "move model to gpu", "zh/": "怎么把模型放到GPU上"}

# in the page: the time of the last `input` event in the search box, and of the first result shown after it
WATCH = """() => {
  window.ptTiming = {typed: 0, shown: 0}
  document.addEventListener("input", () => { window.ptTiming = {typed: performance.now(), shown: 0} }, true)
  new MutationObserver(() => {
    const t = window.ptTiming
    if (t.typed && !t.shown && document.querySelector(".md-search-result__item")) t.shown = performance.now()
  }).observe(document.querySelector(".md-search-result__list"), {childList: true, subtree: true})
}"""


def throttled(browser: Any) -> tuple[Any, Any, dict[str, int]]:
    """A new page of ``browser`` throttled as Lighthouse's mobile run, and the bytes it receives by request."""
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1.75, is_mobile=True, has_touch=True)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", NETWORK)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    received: dict[str, int] = {}
    indexes: set[str] = set()  # the requests of a search index
    cdp.on("Network.requestWillBeSent",
           lambda e: indexes.add(e["requestId"]) if "/search_index.json" in e["request"]["url"] else None)  # fmt: skip
    cdp.on("Network.loadingFinished",
           lambda e: received.__setitem__(("index " if e["requestId"] in indexes else "") + e["requestId"],
                                          e["encodedDataLength"]))  # fmt: skip
    return context, page, received


def page_bytes(received: dict[str, int]) -> int:
    """The bytes of ``received`` but for the search index."""
    return sum(size for request, size in received.items() if not request.startswith("index "))


def first_result(page: Any, query: str) -> float:
    """Milliseconds from typing ``query`` into the open search box to its first result shown."""
    page.evaluate(WATCH)
    page.keyboard.insert_text(query)  # one `input` event, as a paste: input.js has Material search at once
    page.wait_for_function("() => window.ptTiming.shown > 0", timeout=60_000)
    timing = page.evaluate("() => window.ptTiming")
    return float(timing["shown"] - timing["typed"])


def measure(browser: Any, url: str, query: str) -> dict[str, float]:
    found: dict[str, float] = {}
    context, page, received = throttled(browser)
    try:
        page.goto(url)
        page.wait_for_load_state("networkidle")
        found["bytes before search"] = page_bytes(received)
        started = page.evaluate("() => performance.now()")
        open_phone_search(page)  # focus: the index is fetched, unless the browser was idle and fetched it
        found["index ms"] = page.evaluate("() => performance.now()") - started
        found["bytes of search"] = sum(received.values()) - page_bytes(received)
        found["first result ms"] = first_result(page, query)
    finally:
        context.close()
    context, page, received = throttled(browser)
    try:  # a reader who types at once: the index is fetched and built while they type
        page.goto(url)
        page.wait_for_load_state("networkidle")
        page.locator("label.md-header__button[for=__search]").click()
        found["first result ms, typed on focus"] = first_result(page, query)
    finally:
        context.close()
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", type=Path, default=ROOT / "site")
    parser.add_argument("--page", action="append", help="a path under the site (default: each language's home)")
    parser.add_argument("--query", help="what to type (default: a query of the page's language)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    over = 0
    with served(args.site) as base_url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium(), args=ARGS)
        for path in args.page or [home("en"), home("zh")]:
            query = args.query or QUERIES["zh/" if path.startswith("zh/") else ""]
            url = f"{base_url}{site_base(ROOT / 'mkdocs.yml')}{path}"
            runs = [measure(browser, url, query) for _ in range(REPEAT)]
            print(f"/{path} ({query!r}), fastest of {REPEAT} (median):")
            for name in runs[0]:
                values = [run[name] for run in runs]
                print(f"    {name}: {min(values):.0f} ({statistics.median(values):.0f})")
            over += min(run["bytes before search"] for run in runs) > BYTES_BEFORE_SEARCH
            over += min(run["first result ms"] for run in runs) > FIRST_RESULT_MS
        browser.close()
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
