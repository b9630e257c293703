"""The built site in headless Chromium: what a reader sees, switches to and finds."""

from __future__ import annotations

import functools
import os
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urljoin, urlsplit

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip

if not os.path.exists(CHROMIUM):
    if os.environ.get("CI"):
        raise RuntimeError("CI must run the browser tests: .ci/run installs Debian's chromium")
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def base_url(real_site):
    site, _ = real_site
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    yield page
    page.close()


@pytest.mark.parametrize("lang", ["", "zh/"])
def test_page_shows_code_output_and_provenance(page, base_url, lang, tmp_path):
    page.goto(f"{base_url}/{lang}tensors/cat-and-stack/")
    output = page.locator(".language-text").first
    assert output.is_visible()
    assert "torch.Size([4, 3])" in output.inner_text()
    assert page.locator(".mx-provenance").first.is_visible()
    assert page.locator(".language-python .md-code__button").count() > 0, "code blocks have copy buttons"
    page.screenshot(path=tmp_path / "page.png")


def test_language_switcher_keeps_the_reader_on_the_same_page(page, base_url):
    page.goto(f"{base_url}/autograd/detach-and-data/")
    page.locator(".md-header__option .md-select").hover()
    page.get_by_role("link", name="中文").click()
    page.wait_for_url("**/zh/autograd/detach-and-data/")
    assert "脱离计算图" in page.locator("article").inner_text()


@pytest.mark.parametrize(
    ("lang", "query", "found"),
    [
        ("", "concatenated", "tensors/cat-and-stack/"),  # an error message readers paste
        ("zh/", "拼接", "zh/tensors/cat-and-stack/"),  # a Chinese word, segmented by jieba
        ("zh/", "计算图", "zh/autograd/detach-and-data/"),
        ("", "can't optimize a non-leaf Tensor", "autograd/copying-tensors/"),  # a whole error line
        ("zh/", "显存", "zh/devices/gpu-memory/"),
    ],
)
def test_search_finds_english_and_chinese_words(page, base_url, lang, query, found):
    page.goto(f"{base_url}/{lang}")
    page.locator("label.md-search__icon, .md-search__input").first.click()
    search = page.locator(".md-search__input")
    search.fill(query)
    search.press("End")  # Material searches on key events, which fill() alone does not send
    results = page.locator(".md-search-result__item a")
    results.first.wait_for(timeout=10_000)
    pages = {urlsplit(urljoin(page.url, results.nth(i).get_attribute("href"))).path for i in range(results.count())}
    assert f"/{found}" in pages, pages
