"""What three of the site's choices save a reader's browser, each against its alternative, side by side in one run.

    .venv/bin/python bench/pages.py [SITE] [--runs N]      (after `make build`; `make bench` runs it)

On the built site, served as GitHub Pages serves it (tools/pages_server.py), in Chromium at a phone's size
(unthrottled: the figures are main-thread milliseconds, and the ratios are what to compare):

- **palette**: the main thread's busy time while zh/errors/cuda loads, with the header's palette script
  (overrides/partials/palette.js) and with Material's palette component, the page rewritten in the browser
  to Material's partial (the only differences, as tests/test_overrides.py checks);
- **blocks**: the same page load as built, with site.css's `content-visibility: auto` on the article's blocks
  from its 24th on, and with it overridden, every block laid out at once (the page's code blocks as built);
- **search**: the longest main-thread task between typing a Chinese query on /zh/ and its first result
  shown (Material drawing the results), with site.css's `content-visibility: auto` on each result and with
  it overridden, every result laid out at once.

Each page load is given the page's HTML as the server sent it, or rewritten, the rest served; each run measures
the loads and the pair of searches one after the other, in fresh browser contexts, so that all share the
machine's state of the moment; each run is printed, then the medians and their ratios.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path
from typing import Any
from urllib.request import urlopen

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from links import site_base  # noqa: E402  (tools/links.py)
from pages_server import served  # noqa: E402
from search_queries import ARGS, ask, chromium, open_phone_search  # noqa: E402

PHONE = {"viewport": {"width": 412, "height": 823}, "device_scale_factor": 1.75, "is_mobile": True, "has_touch": True}
PAGE = "zh/errors/cuda/"
QUERY = "怎么把模型放到GPU上"
CATEGORIES = ["toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline"]
ALL_LAID_OUT = ".md-search-result__item { content-visibility: visible !important; }"
ALL_BLOCKS_LAID_OUT = "<style>.md-content__inner > :not(.highlight) { content-visibility: visible !important; }</style>"


def materials_palette(html: str) -> str:
    """The page as Material's palette partial writes it: the component Material's bundle mounts, no script of ours."""
    html = html.replace("<form class=\"md-header__option\" data-palette>",
                        "<form class=\"md-header__option\" data-md-component=\"palette\">")  # fmt: skip
    return re.sub(r"</form>\n<script>/\* The header's light/dark toggle.*?</script>", "</form>\n", html, count=1,
                  flags=re.S)  # fmt: skip


def main_thread_tasks(trace: bytes) -> list[float]:
    """The durations (ms) of the tasks of the page's main thread in a Chromium trace."""
    events = json.loads(trace)
    events = events["traceEvents"] if isinstance(events, dict) else events
    main = {e["tid"] for e in events if e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"}
    return [e["dur"] / 1000 for e in events if e.get("name") == "RunTask" and e.get("ph") == "X" and e["tid"] in main]


def page_load(browser: Any, url: str, html: str | None) -> float:
    """Main-thread busy time (ms) of loading ``url``, its HTML replaced by ``html`` where given."""
    context = browser.new_context(**PHONE)
    page = context.new_page()
    try:
        if html is not None:
            page.route(url, lambda route: route.fulfill(body=html, content_type="text/html"))
        browser.start_tracing(page=page, categories=CATEGORIES)
        page.goto(url)
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(500)  # Material's components, mounted after the load
        return sum(main_thread_tasks(browser.stop_tracing()))
    finally:
        context.close()


def search(browser: Any, url: str, style: str | None) -> float:
    """The longest main-thread task (ms) from typing QUERY into the search of ``url`` to its results shown."""
    context = browser.new_context(**PHONE)
    page = context.new_page()
    try:
        page.goto(url)
        if style:
            page.add_style_tag(content=style)
        open_phone_search(page)
        browser.start_tracing(page=page, categories=CATEGORIES)
        ask(page, QUERY)
        return max(main_thread_tasks(browser.stop_tracing()))
    finally:
        context.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", type=Path, default=ROOT / "site")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not (args.site / PAGE / "index.html").exists():
        print(f"{args.site / PAGE}index.html: no built site there; run `make build` first", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    figures: dict[str, list[float]] = {}
    with served(args.site) as base_url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium(), args=ARGS)
        root = f"{base_url}{site_base(ROOT / 'mkdocs.yml')}"
        built = urlopen(root + PAGE).read().decode()
        material = materials_palette(built)
        assert 'data-md-component="palette"' in material and "light/dark toggle" not in material, "rewrite failed"
        all_blocks = built.replace("</head>", ALL_BLOCKS_LAID_OUT + "</head>", 1)
        print(
            "run  page as built  palette: Material's  blocks: all laid out   search: lazy  all laid out"
            "   (main-thread ms)"
        )
        for run in range(1, args.runs + 1):
            row = {
                "page load, as built": page_load(browser, root + PAGE, built),
                "page load, Material's palette": page_load(browser, root + PAGE, material),
                "page load, every block laid out": page_load(browser, root + PAGE, all_blocks),
                "search, results laid out as they come on screen": search(browser, root + "zh/", None),
                "search, all laid out at once": search(browser, root + "zh/", ALL_LAID_OUT),
            }
            for name, value in row.items():
                figures.setdefault(name, []).append(value)
            print(f"{run:3}  " + "  ".join(f"{value:14.0f}" for value in row.values()), flush=True)
        browser.close()
    medians = {name: statistics.median(values) for name, values in figures.items()}
    print("medians:")
    for name, value in medians.items():
        print(f"    {name}: {value:.0f} ms")
    palette = medians["page load, as built"] / medians["page load, Material's palette"]
    blocks = medians["page load, as built"] / medians["page load, every block laid out"]
    lazy = medians["search, results laid out as they come on screen"] / medians["search, all laid out at once"]
    print(
        f"a page load, palette ours / Material's: {palette:.2f}; blocks lazy / all: {blocks:.2f}; "
        f"drawing the search results, lazy / all: {lazy:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
