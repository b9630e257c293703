"""The site's Content-Security-Policy (overrides/main.html, examples-csp) on the real site, in headless Chromium.

The site's own scripts break none of its rules on any kind of page (search, the palette toggle, the torch
picker, KaTeX, a notebook view, the 404 pages), and a script that a page's content brings does not run.
"""

from __future__ import annotations

import re
from urllib.request import urlopen

import pytest
from helpers import search_queries
from test_browser import SITE_PATH, VERSIONS

# Every violation of the policy, recorded from before the page's first script runs
VIOLATIONS = """window.violations = [];
document.addEventListener("securitypolicyviolation", e => window.violations.push(
    `${e.effectiveDirective} ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`), true);"""


@pytest.fixture
def watched(browser):
    """A tab whose policy violations are kept, in ``window.violations`` and as the console reports them."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(VIOLATIONS)
    page = context.new_page()
    page.console = []
    page.on("console", lambda m: page.console.append(m.text) if "Content Security Policy" in m.text else None)
    yield page
    context.close()


def violations(page) -> list[str]:
    return page.evaluate("window.violations") + page.console


def test_every_page_has_one_policy_before_its_first_script_and_no_unsafe_inline_script(real_site):
    site, _ = real_site
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 100
    for page in pages:
        text = page.read_text()
        policies = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', text)
        assert len(policies) == 1, page
        assert text.index('http-equiv="Content-Security-Policy"') < text.index("<script"), page
        (script_src,) = [d for d in policies[0].split(";") if d.split()[0] == "script-src"]
        assert script_src.split()[1] == "'self'" and "unsafe" not in script_src, (page, script_src)
        assert "'inline-script-hashes'" not in script_src, page  # examples-csp wrote each page's


@pytest.mark.parametrize(
    ("path", "ready"),
    [
        ("", "document.querySelector('.mx-picker')"),  # the picker, from its data
        ("zh/tensors/cat-and-stack/", "document.querySelector('.md-code__button')"),  # Material's bundle
        ("losses/kl-div/", "!document.querySelector('.arithmatex:not(:has(.katex))')"),  # KaTeX, fetched by maths.js
        ("zh/errors/cuda/", "document.querySelector('.mx-picker')"),
        ("notebooks/tensors/cat_and_stack/", "customElements.get('clipboard-copy')"),  # mkdocs-jupyter's own script
        ("zh/notebooks/devices/gpu_memory/", "customElements.get('clipboard-copy')"),
    ],
)
def test_a_page_runs_its_scripts_without_a_violation(watched, base_url, path, ready):
    watched.goto(f"{base_url}/{path}")
    watched.wait_for_function(f"() => {ready}")
    watched.wait_for_load_state("networkidle")
    assert watched.evaluate("typeof __md_get") == "function"  # Material's inline script in <head> ran
    assert violations(watched) == []


def test_search_the_palette_toggle_and_the_picker_work_without_a_violation(watched, base_url):
    from playwright.sync_api import expect

    assert "/zh/devices/gpu-memory/" in search_queries.search(watched, base_url, "zh/", "显存")[:3]  # the worker
    watched.goto(f"{base_url}/")
    scheme = watched.evaluate("document.body.dataset.mdColorScheme")
    watched.locator("form[data-palette] label:visible").click()  # partials/palette.js, inline
    assert watched.evaluate("document.body.dataset.mdColorScheme") != scheme
    choice = watched.locator("select.mx-picker__select option").nth(1)
    folder, release = choice.get_attribute("value"), choice.text_content().split(" · ")[0]  # "2.4.1 · CPU"
    watched.locator("select.mx-picker__select").select_option(folder)  # fetches outputs/, writes PNG data
    expect(watched.locator(VERSIONS)).to_contain_text(f"torch {release}")
    watched.wait_for_load_state("networkidle")
    assert violations(watched) == []


@pytest.mark.parametrize(("lang", "title"), [("", "404: page not found"), ("zh/", "404：页面不存在")])
def test_a_missing_page_shows_its_404_without_a_violation(watched, base_url, lang, title):
    """Under /zh/, the English 404 page writes the Chinese one in its place, which runs under the English page's
    policy as well as its own."""
    watched.goto(f"{base_url}{SITE_PATH}{lang}no/such/page/")
    watched.wait_for_function(f"() => document.querySelector('article h1')?.textContent.trim() === {title!r}")
    watched.wait_for_load_state("networkidle")
    assert watched.evaluate("typeof __md_get") == "function"
    assert violations(watched) == []


def test_a_script_in_a_pages_content_does_not_run(watched, base_url):
    """What examples-page-html refuses, put into a built page: an inline script, an event handler, a javascript:
    link. The browser runs none of them and reports each."""
    url = f"{base_url}/tensors/cat-and-stack/"
    html = urlopen(url).read().decode()
    injected = (
        '<script>window.ran = "a script"</script><img src="missing.png" onerror="window.ran = \'onerror\'">'
        "<a id=\"injected\" href=\"javascript:window.ran = 'a link'\">link</a>"
    )
    title = html.index("<h1")
    page = html[:title] + injected + html[title:]
    watched.route(url, lambda route: route.fulfill(body=page, content_type="text/html"))
    watched.goto(url)
    watched.wait_for_load_state("networkidle")
    watched.locator("#injected").click()
    watched.wait_for_function("() => window.violations.length >= 3")
    assert watched.evaluate("window.ran") is None
    found = watched.evaluate("window.violations")
    assert sum(v.startswith("script-src-elem inline") for v in found) == 2, found  # the script and the link
    assert sum(v.startswith("script-src-attr inline") for v in found) == 1, found  # the handler
    assert watched.evaluate("typeof __md_get") == "function"  # the site's own still ran


REGISTER = """() => navigator["service" + "Worker"].register("sw.js").then(() => "registered", e => e.name)"""


def test_a_preview_page_cannot_register_a_service_worker_however_it_spells_the_call(browser, real_site, tmp_path):
    import shutil

    from test_workflows import CHECK_SITE, HEAD, _preview_site, _run_step

    env = {**_preview_site(tmp_path, {}), "MAX_PREVIEW_MB": "100"}  # preview.yml's limit
    site = tmp_path / "preview" / "site"
    shutil.copytree(real_site[0], site, dirs_exist_ok=True)
    (site / "sw.js").write_text("self.addEventListener('fetch', e => e.respondWith(new Response('kept')))")

    def register() -> str:
        context = browser.new_context()
        try:
            with search_queries.served(site) as url:
                page = context.new_page()
                page.goto(f"{url}/")
                return page.evaluate(REGISTER)
        finally:
            context.close()

    assert register() == "registered"  # the site's own policy lets a script of its files register one
    code, log, _ = _run_step("preview.yml", CHECK_SITE, env, tmp_path, gh=f"echo {HEAD}")
    assert code == 0, log
    assert register() == "SecurityError"  # the preview's: worker-src 'none', first in <head>
