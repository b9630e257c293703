"""How well the built site's search answers what readers type: tests/search_queries.yml in Chromium.

    .venv/bin/python tools/search_queries.py [SITE]   # SITE: a built site folder, site/ by default
    .venv/bin/python tools/search_queries.py SITE --queries tests/questions_wider.yml   # another list

For every query of the list, the search of its language (the home page of `/` or `/zh/`) as a
reader uses it, and where the expected page comes: first, in the top 3, further down, or not among
the results shown (a miss: Material shows ten pages, and more as the reader scrolls). Prints each
query whose page does not come first, and the counts per language. The browser test
(tests/test_browser_search.py) drives the search with the same functions.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from pages_server import served  # tools/pages_server.py: the site as GitHub Pages serves it

from mkdocs_examples import yaml_files

ROOT = Path(__file__).resolve().parent.parent
QUERIES = ROOT / "tests" / "search_queries.yml"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def chromium() -> str:
    """The browser to drive: $CHROMIUM (another Chromium-based one, e.g. a GitHub runner's
    /usr/bin/google-chrome), else Debian's ``chromium-headless-shell``, else its ``chromium``.

    The headless shell is what Playwright itself runs headless: the same Blink, without the
    desktop browser around it. A page load costs it a third of the CPU time (0.4 s against 1.2 s
    measured here), and the tests load hundreds."""
    found = shutil.which("chromium-headless-shell") or shutil.which("chromium")
    return os.environ.get("CHROMIUM") or found or "/usr/bin/chromium-headless-shell"


def queries(path: Path = QUERIES) -> list[tuple[str, str, str | None]]:
    """The list: (language, query, the page it must find first), in the file's order.

    Two forms: ``{lang: [{query, page}, ...]}``, as tests/search_queries.yml, or a list of questions,
    ``questions: [{id, topic, en, zh, source, page}, ...]``, each asked in both languages (all the
    English ones first), where ``page: null`` marks a question the site has no page for: a miss."""
    data = yaml_files.load(path)
    found: list[tuple[str, str, str | None]] = []
    if set(data) == {"questions"}:
        fields = {"id", "topic", "en", "zh", "source", "page"}
        for item in data["questions"]:
            if set(item) != fields:
                raise ValueError(f"{path}: {item!r}: give {', '.join(sorted(fields))}")
        for lang in ("en", "zh"):
            found += [(lang, str(item[lang]), item["page"] and str(item["page"])) for item in data["questions"]]
        return found
    for lang, items in data.items():
        for item in items:
            if set(item) != {"query", "page"}:
                raise ValueError(f"{path}: {item!r} of {lang}: give `query` and `page`")
            found.append((lang, str(item["query"]), str(item["page"])))
    return found


def home(lang: str) -> str:
    """The path of a language's home page; English is the site's default."""
    return "" if lang == "en" else f"{lang}/"


def result_pages(page: Any) -> list[str]:
    """The pages of the search results shown, best first, once the worker has answered (a page once,
    though its best sections are links of their own)."""
    # Material writes the count first and draws the results after it, a frame or more later on a loaded machine,
    # and draws them again when a second answer to the same query comes (a key event after the input's):
    # the results are read once two readings 100 ms apart agree
    page.wait_for_function(ANSWERED, timeout=10_000)
    found = _links(page)
    for _ in range(50):
        page.wait_for_timeout(100)
        again = _links(page)
        if again == found:
            break
        found = again
    return list(dict.fromkeys(found))


def _links(page: Any) -> list[str]:
    """The paths the results shown link to, in their order."""
    hrefs = page.eval_on_selector_all(".md-search-result__item > a", "links => links.map(a => a.href)")
    return [urlsplit(urljoin(page.url, href)).path for href in hrefs]


# the search has answered: "No matching documents", or a count and the first result drawn
ANSWERED = """() => {
  const meta = document.querySelector('.md-search-result__meta').textContent
  const drawn = document.querySelector('.md-search-result__item > a') !== null
  return /No matching|没有找到/.test(meta) || (/\\d/.test(meta) && drawn)
}"""


def open_search(page: Any, base_url: str | None = None, path: str = "") -> Any:
    """Open the search box of ``page`` (after going to ``path`` of ``base_url`` when given): its input."""
    if base_url is not None:
        page.goto(f"{base_url}/{path}")
    page.locator("label.md-search__icon, .md-search__input").first.click()
    return page.locator(".md-search__input")


# the search of a page is ready, its index built: Material's "Initializing search" (in the page's language)
# has given way to its "Type to start searching" (with no query typed)
READY = """() => {
  const config = JSON.parse(document.getElementById("__config").textContent)
  const meta = document.querySelector(".md-search-result__meta").textContent.trim()
  return meta === config.translations["search.result.placeholder"]
}"""


def wait_until_ready(page: Any, timeout: float = 60_000) -> None:
    """Wait until the search of ``page`` has its index built (nothing typed into its search box yet)."""
    page.wait_for_function(READY, timeout=timeout)


def open_phone_search(page: Any) -> None:
    """Open the search of a phone-sized ``page`` with its header button, which fetches the index unless the
    browser was idle and fetched it already, and wait until the index is built."""
    page.locator("label.md-header__button[for=__search]").click()
    wait_until_ready(page)


def search(page: Any, base_url: str, path: str, query: str) -> list[str]:
    """Open ``path``, type ``query`` into the search box: the result pages, best first."""
    open_search(page, base_url, path)
    return ask(page, query)


def ask(page: Any, query: str) -> list[str]:
    """Type ``query`` into the search box that is open on ``page``, in place of what it held: the
    result pages, best first (a second query needs no new page)."""
    box = page.locator(".md-search__input")
    if box.input_value() == query:  # asked already: what is shown answers it (Material would not search again)
        return result_pages(page)
    page.evaluate("() => { const meta = document.querySelector('.md-search-result__meta'); meta.textContent = '' }")
    box.fill(query)
    box.press("End")  # Material searches on key events, which fill() alone does not send
    return result_pages(page)


def rank(pages: list[str], lang: str, expected: str | None) -> int:
    """Where the page ``expected`` (its path under docs/<lang>/) comes in ``pages``, from 1; 0: not there
    (always where no page is expected)."""
    if expected is None:
        return 0
    url = f"/{home(lang)}{expected}/"
    return pages.index(url) + 1 if url in pages else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", type=Path, default=ROOT / "site")
    parser.add_argument("--chromium", default=chromium())
    parser.add_argument("--queries", type=Path, default=QUERIES, help="another list (see queries())")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    counts: dict[str, dict[str, int]] = {}
    with served(args.site) as base_url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        opened = ""
        for lang, query, expected in queries(args.queries):
            if opened != lang:  # the search of the language's home page, open for all its queries
                pages, opened = search(page, base_url, home(lang), query), lang
            else:
                pages = ask(page, query)
            found = rank(pages, lang, expected)
            tally = counts.setdefault(lang, {"queries": 0, "first": 0, "top 3": 0, "miss": 0})
            tally["queries"] += 1
            tally["first"] += found == 1
            tally["top 3"] += 0 < found <= 3
            tally["miss"] += found == 0
            if found != 1:
                shown = " ".join(p.removeprefix(f"/{home(lang)}") for p in pages[:3])
                where = f"#{found}" if found else "missing" if expected else "no page"
                print(f"{lang} {query!r}: {expected or '-'} {where} (first: {shown})")
        browser.close()
    for lang, tally in counts.items():
        print(f"{lang}: " + ", ".join(f"{name} {number}" for name, number in tally.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
