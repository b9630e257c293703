"""What readers expect of every page of the real site: descriptions, dates, reference links, 404s, sitemaps."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort, PluginError
from mkdocs.utils.yaml import yaml_load
from test_site_plugins import PAGES

from mkdocs_examples import yaml_files
from mkdocs_examples.site.pages import REFERENCE, Inventory, PagesPlugin, read_inventory, reference

ROOT = Path(__file__).parent.parent
SITE_URL = yaml_files.load(ROOT / "mkdocs.yml")["site_url"]


def pages(site):
    return [p for p in site.rglob("index.html") if "assets" not in p.parts]


def test_every_page_has_its_own_description_in_its_language(real_site):
    site, _ = real_site
    seen = {}
    for page in pages(site):
        found = re.search(r'<meta name="description" content="([^"]*)"', page.read_text())
        assert found and found[1], f"{page}: no description"
        seen.setdefault(html.unescape(found[1]), []).append(page.relative_to(site).as_posix())
    assert all(len(where) == 1 for where in seen.values()), [w for w in seen.values() if len(w) > 1]
    zh = [d for d, where in seen.items() if where[0].startswith("zh/")]
    assert zh and all(re.search(r"[\u4e00-\u9fff]", d) for d in zh)


def test_a_headings_link_to_itself_is_titled_in_the_pages_language(real_site):
    """examples-pages: the toc extension's `permalink_title` for each language's build."""
    site, _ = real_site
    titles: dict[str, set[str]] = {"en": set(), "zh": set()}
    for page in pages(site):
        lang = "zh" if page.relative_to(site).parts[0] == "zh" else "en"
        titles[lang].update(re.findall(r'<a class="headerlink" href="[^"]*" title="([^"]*)"', page.read_text()))
    assert titles == {"en": {"Permanent link"}, "zh": {"永久链接"}}


def test_pages_of_both_languages_have_the_same_headings_in_the_same_order(real_site):
    """The language switcher names a heading by its rank to the other language's page (docs/assets/anchor.js),
    whose ids differ (#concatenating, #拼接): each page's twin has headings of the same levels, in the same order."""
    site, _ = real_site
    levels = re.compile(r'<h([2-6]) id="')
    twins = [(page, site / "zh" / page.relative_to(site)) for page in pages(site) if page.relative_to(site).parts[0]
             != "zh"]  # fmt: skip
    twins = [(en, zh) for en, zh in twins if zh.is_file()]
    assert len(twins) > 100
    for en, zh in twins:
        assert levels.findall(en.read_text()) == levels.findall(zh.read_text()), en.relative_to(site)


def test_content_pages_have_a_date_an_edit_link_and_previous_next(real_site):
    site, _ = real_site
    for name in ("tensors/reshaping/index.html", "zh/tensors/reshaping/index.html"):
        text = (site / name).read_text()
        assert re.search(r'md-source-file__fact">.*?\d{4}-\d{2}-\d{2}', text, re.S), name
        source = "docs/zh/tensors/reshaping.md" if name.startswith("zh/") else "docs/en/tensors/reshaping.md"
        assert f"/edit/main/{source}" in text
        assert "md-footer__link--prev" in text and "md-footer__link--next" in text


def test_every_api_link_goes_to_a_page_and_anchor_of_pytorchs_documentation(real_site):
    """A link is only made to an entry of the inventory (data/pytorch_api.json), never by a rule."""
    site, _ = real_site
    plugin, links = site_pages(), set()
    for page in pages(site):
        links |= set(re.findall(r'<a href="([^"]+)" class="mx-api"[^>]*><code>([^<]+)</code>', page.read_text()))
    assert len(links) > 50
    published = set(read_inventory(plugin.config.inventory).names.values())
    for url, shown in links:
        assert url.startswith(REFERENCE) and url.removeprefix(REFERENCE) in published, (shown, url)
        page, _, anchor = url.removeprefix(REFERENCE).partition("#")
        assert page.endswith(".html") and anchor, url
    # these pointed to generated/<name>.html pages that PyTorch's reference does not have
    shown = {s.removesuffix("()"): u.removeprefix(REFERENCE) for u, s in links}
    assert shown["torch.autograd.detect_anomaly"] == "autograd.html#torch.autograd.detect_anomaly"
    assert shown["torch.utils.checkpoint.checkpoint"] == "checkpoint.html#torch.utils.checkpoint.checkpoint"


def site_pages() -> PagesPlugin:
    """The plugin examples-pages with the options the real site gives it in mkdocs.yml."""
    with (ROOT / "mkdocs.yml").open(encoding="utf-8") as file:
        listed = yaml_load(file)["plugins"]
    (options,) = [item["examples-pages"] for item in listed if isinstance(item, dict) and "examples-pages" in item]
    plugin = PagesPlugin()
    assert plugin.load_config(options, str(ROOT / "mkdocs.yml")) == ([], [])
    return plugin


def test_api_names_resolve_to_their_entry_in_the_inventory():
    plugin = site_pages()
    assert plugin.reference("torch.cat").endswith("generated/torch.cat.html#torch.cat")
    assert plugin.reference("nn.Linear").endswith("generated/torch.nn.Linear.html#torch.nn.Linear")
    assert plugin.reference("F.cross_entropy").endswith("#torch.nn.functional.cross_entropy")
    assert plugin.reference("Tensor.detach()").endswith("generated/torch.Tensor.detach.html#torch.Tensor.detach")
    assert plugin.reference("torch.utils.data.DataLoader").endswith("data.html#torch.utils.data.DataLoader")
    assert plugin.reference("torch.nn").endswith("nn.html#module-torch.nn")  # a module with an entry
    assert plugin.reference("torch.float32") is None  # a value: no entry of its own, not linked
    assert plugin.reference("torch.zero_grad") is None  # shown on purpose as a mistake (unlinked)
    assert plugin.reference("torch.no_such_function") == ""


def test_api_names_documented_under_another_name_link_where_pytorch_documents_them():
    """A rule would point these to generated/<name>.html pages that PyTorch's reference does not have."""
    plugin = site_pages()
    expected = {
        "torch.Tensor": "tensors.html#torch.Tensor",
        "torch.dtype": "tensor_attributes.html#torch.dtype",
        "torch.device": "tensor_attributes.html#torch.device",
        "torch.Size": "size.html#torch.Size",
        "nn.Parameter": "generated/torch.nn.parameter.Parameter.html#torch.nn.parameter.Parameter",
        "torch.set_grad_enabled": (
            "generated/torch.autograd.grad_mode.set_grad_enabled.html#torch.autograd.grad_mode.set_grad_enabled"
        ),
        "torch.cuda.empty_cache": "generated/torch.cuda.memory.empty_cache.html#torch.cuda.memory.empty_cache",
        "nn.init.xavier_uniform_": "nn.init.html#torch.nn.init.xavier_uniform_",
        "torch.profiler.profile": "profiler.html#torch.profiler.profile",
        "torch.utils.benchmark.Timer": "benchmark_utils.html#torch.utils.benchmark.Timer",
    }
    assert {name: plugin.reference(name) for name in expected} == {n: REFERENCE + u for n, u in expected.items()}
    assert plugin.reference("nn.init.xavier_uniform") is None  # a deprecated alias: unlinked on purpose


def test_every_name_left_unlinked_on_purpose_is_really_missing_from_the_inventory():
    plugin = site_pages()
    known = read_inventory(plugin.config.inventory)
    assert plugin.config.unlinked
    assert not [name for name in plugin.config.unlinked if name in known.names or name in known.aliases]


@pytest.mark.parametrize("content", [None, "{not json", '{"names": ["torch.cat"]}', '{"source": ""}'])
def test_a_missing_or_broken_inventory_is_an_error_naming_the_file_and_the_tool(tmp_path, content):
    inventory = tmp_path / "pytorch_api.json"
    if content is not None:
        inventory.write_text(content)
    with pytest.raises(PluginError, match=r"pytorch_api\.json: not an inventory .*tools/pytorch_inventory\.py"):
        read_inventory(str(inventory))


def test_an_api_name_is_resolved_from_the_inventory_alone():
    """Aliases and values come from the file: a name the inventory does not know is a warning, whatever torch holds."""
    known = Inventory(
        names={"torch.cat": "generated/torch.cat.html#torch.cat", "torch.a.b.f": "a.html#torch.a.b.f"},
        aliases={"torch.f": "torch.a.b.f"},
        values=frozenset({"torch.flag"}),
    )
    assert reference("torch.cat", known) == REFERENCE + "generated/torch.cat.html#torch.cat"
    assert reference("torch.f()", known) == REFERENCE + "a.html#torch.a.b.f"
    assert reference("torch.flag", known) is None
    assert reference("torch.float32", known) == ""  # a value in torch, but not in this inventory
    assert reference("torch.utils.model_dump.__main__", known) == ""
    assert reference("torch.f", known, unlinked={"torch.f": "why"}) is None  # the option unlinked
    assert reference("torch.cat", known, base="https://x.org/") == "https://x.org/generated/torch.cat.html#torch.cat"


def test_api_names_link_in_prose_only_and_each_code_block_is_a_tab_stop():
    """Not in a heading, a link, a code block, or a fold's summary (a control: no link inside it)."""
    from types import SimpleNamespace

    plugin = site_pages()
    content = (
        '<p>Use <code>torch.cat</code> or <code>torch.cat()</code>, not <code class="x">torch.cat</code>.</p>\n'
        '<h2 id="c"><code>torch.cat</code><a class="headerlink" href="#c">¶</a></h2>\n'
        '<p><a href="https://x.org/"><code>torch.cat</code></a></p>\n'
        '<details><summary><code>torch.cat</code> changes</summary><p>x</p></details>\n'
        '<div class="highlight"><pre><span></span><code>torch.cat</code></pre></div>\n'
        '<pre class="x"><code>torch.cat</code></pre>'
    )
    page = SimpleNamespace(file=SimpleNamespace(src_uri="a.md", abs_src_path=None), markdown="")
    linked = plugin.on_page_content(content, page=page, config=SimpleNamespace(docs_dir="docs"), files=None)
    url = plugin.reference("torch.cat")
    expected = content.replace(
        "<code>torch.cat</code> or <code>torch.cat()</code>",
        f'<a href="{url}" class="mx-api" title="PyTorch reference"><code>torch.cat</code></a> or '
        f'<a href="{url}" class="mx-api" title="PyTorch reference"><code>torch.cat()</code></a>',
    ).replace("<pre><span></span><code>", '<pre><span></span><code tabindex="0">')
    assert linked == expected  # nothing in a heading, a link, a summary or a code block; a block's code a tab stop


@pytest.mark.parametrize("command", ["serve", "build"])
def test_under_serve_a_page_handed_the_same_content_again_gets_what_it_got_without_reading_it(monkeypatch, command):
    from types import SimpleNamespace

    from mkdocs_examples.site import pages

    plugin = site_pages()
    plugin.on_startup(command=command, dirty=False)
    reads: list[str] = []
    find_all = pages.html_parse.find_all

    def counted(html: str, *args, **kwargs):
        reads.append(html)
        return find_all(html, *args, **kwargs)

    monkeypatch.setattr(pages.html_parse, "find_all", counted)
    config = SimpleNamespace(docs_dir="docs", config_file_path="mkdocs.yml")

    def content(text: str, uri: str = "a.md") -> str:
        page = SimpleNamespace(file=SimpleNamespace(src_uri=uri, abs_src_path=None), markdown=text)
        return plugin.on_page_content(text, page=page, config=config, files=None)

    first = content("<p><code>torch.cat</code></p>")
    assert "mx-api" in first and reads
    reads.clear()
    assert content("<p><code>torch.cat</code></p>") == first
    assert bool(reads) == (command == "build")  # `mkdocs build` hands each page once: it keeps nothing
    reads.clear()
    assert "mx-api" in content("<p><code>torch.stack</code></p>") and reads  # the page changed: read again
    reads.clear()
    assert content("<p><code>torch.cat</code></p>", "b.md") == first and reads  # another page: its own
    warned = "<p><code>torch.no_such_function</code></p>"
    for _ in range(2):  # a page that warns warns on each rebuild
        reads.clear()
        content(warned, "c.md")
        assert reads


@pytest.mark.parametrize("aliases", ['{"torch.f": "torch.not_documented"}', '["torch.f"]'])
def test_an_alias_of_no_documented_name_is_an_error(tmp_path, aliases):
    inventory = tmp_path / "pytorch_api.json"
    inventory.write_text(f'{{"names": {{"torch.cat": "x.html#torch.cat"}}, "aliases": {aliases}}}')
    with pytest.raises(PluginError, match=r'pytorch_api\.json: not an inventory .*"aliases"'):
        read_inventory(str(inventory))


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("name", ["torch.no_such_function", "torch.conv2d"])  # torch.conv2d: in torch, not in torch.md
def test_a_name_not_in_pytorchs_documentation_is_a_warning_naming_the_page_and_fails_a_strict_build(
    tmp_path, caplog, strict, name
):
    site = shutil.copytree(ROOT / "tests" / "site", tmp_path / "site")
    config_file = site / "mkdocs.yml"
    text = config_file.read_text().replace("  - examples:\n", "  - examples:\n      enabled: false\n", 1)
    config_file.write_text(text.replace("markdown_extensions:\n", f"  - {PAGES}\nmarkdown_extensions:\n", 1))
    # on the default language's page: a strict build that fails inside static-i18n's build of another
    # language leaves MkDocs' clean_directory patched out for the rest of the process (static-i18n 1.3.1)
    page = site / "docs" / "en" / "index.md"
    page.write_text(page.read_text() + f"\n`{name}` is not documented, `torch.cat` is.\n")
    config = load_config(str(config_file), strict=strict)
    config.plugins.on_startup(command="build", dirty=False)
    try:
        if strict:
            with pytest.raises(Abort):
                build(config)
        else:
            build(config)
    finally:
        config.plugins.on_shutdown()
    (warning,) = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warning.startswith(f"pages: docs/en/index.md:11: `{name}` is not in PyTorch's documentation")
    fix = "pytorch_api.json): fix the name, or add it to `unlinked` of the plugin examples-pages in mkdocs.yml"
    assert fix in warning
    if not strict:
        built = (site / "site" / "index.html").read_text()
        assert f"<code>{name}</code> is not" in built and 'class="mx-api"' in built  # unlinked; torch.cat linked


def test_sitemaps_list_only_real_pages_per_language(real_site):
    site, _ = real_site
    for sitemap, prefix in ((site / "sitemap.xml", ""), (site / "zh" / "sitemap.xml", "zh/")):
        urls = re.findall(r"<loc>([^<]+)</loc>", sitemap.read_text())
        assert len(urls) > 40
        for url in urls:
            assert url.startswith(SITE_URL + prefix), url
            path = url.removeprefix(SITE_URL)
            assert (site / path / "index.html").exists() or (site / path).is_file(), url


def test_sitemaps_give_each_page_the_date_it_shows_as_lastmod(real_site):
    """<lastmod> is the date under the page (its last commit, or its examples'), not the day of the build."""
    site, _ = real_site
    for sitemap, label in ((site / "sitemap.xml", "Last update: "), (site / "zh" / "sitemap.xml", "最后更新：")):
        entries = re.findall(r"<loc>([^<]+)</loc>\s*<lastmod>([^<]+)</lastmod>", sitemap.read_text())
        dated = 0
        for url, lastmod in entries:
            page = site / url.removeprefix(SITE_URL) / "index.html"
            shown = re.search(rf"{label}(\d{{4}}-\d{{2}}-\d{{2}})", page.read_text())
            if shown:  # a page with no date of its own keeps the day of the build
                dated += 1
                assert lastmod == shown[1], url
        assert dated > 40, sitemap


def test_a_404_page_in_each_language_leads_home(real_site):
    site, _ = real_site
    base = urlsplit(SITE_URL).path
    for page, title, home in (
        (site / "404.html", "page not found", base),
        (site / "zh/404.html", "页面不存在", base + "zh/"),
    ):
        text = page.read_text()
        assert title in text and f'href="{home}"' in text
        switch = set(re.findall(r'<a href="([^"]*)" hreflang="([a-z]+)"', text))
        assert switch == {(base, "en"), (base + "zh/", "zh")}
        alternates = set(re.findall(r'<link rel="alternate" href="([^"]*)" hreflang="([a-z]+)"', text))
        assert alternates == {(SITE_URL, "en"), (SITE_URL + "zh/", "zh")}  # absolute, as search engines read them


@pytest.mark.parametrize(("path", "en", "zh"), [("index.html", "", "zh/"), ("zh/tensors/cat-and-stack/index.html",
                         "tensors/cat-and-stack/", "zh/tensors/cat-and-stack/")])  # fmt: skip
def test_a_page_names_its_twins_by_absolute_addresses(real_site, path, en, zh):
    """`<link rel="alternate" hreflang>`: search engines (and Lighthouse's SEO audit) ignore a relative one."""
    text = (real_site[0] / path).read_text()
    alternates = set(re.findall(r'<link rel="alternate" href="([^"]*)" hreflang="([a-z]+)"', text))
    assert alternates == {(SITE_URL + en, "en"), (SITE_URL + zh, "zh")}


def test_a_description_with_quotes_and_markup_stays_inside_its_attribute(tmp_path):
    from html.parser import HTMLParser

    from test_site import build_site

    tests = Path(__file__).parent
    site = shutil.copytree(tests / "site", tmp_path / "site")
    config_file = site / "mkdocs.yml"
    text = config_file.read_text()
    config_file.write_text(text.replace("markdown_extensions:\n", f"  - {PAGES}\nmarkdown_extensions:\n", 1))
    intro = 'Call it "x" & <b>bold</b>, then <script>alert(1)</script> read on.'
    for lang in ("en", "zh"):
        (site / "docs" / lang / "index.md").write_text(f"# Home\n\n{intro}\n")

    class Head(HTMLParser):
        description, scripts = None, []

        def handle_starttag(self, tag, attrs):
            if tag == "meta" and ("name", "description") in attrs:
                self.description = dict(attrs)["content"]

        def handle_data(self, data):
            if "alert" in data:
                self.scripts.append(data)

    build_site(site)
    for page in (site / "site" / "index.html", site / "site" / "zh" / "index.html"):
        head = Head()
        head.feed(page.read_text().split("</head>")[0])
        assert head.description == intro, page
        assert head.scripts == [], page


def _checks_lines(site: Path) -> dict[str, str]:
    """Each page's checks line (render/checks.py), by the page's path: its HTML, the box for contributors apart."""
    found = {}
    for file in pages(site):
        text = file.read_text()
        if (line := re.search(r'<p class="mx-checked".*?</p>', text, re.S)) is not None:
            found[file.relative_to(site).as_posix()] = line[0]
    return found


def test_the_checks_line_speaks_to_readers_and_folds_what_contributors_need(real_site):
    """The line at a page's end says what differs for a reader, in the page's language, linked to the cell; the
    file, the line, the message a check printed and the builds of torch are in the folded box under it only."""
    site, _ = real_site
    lines = _checks_lines(site)
    assert len(lines) > 100
    for path, line in lines.items():
        words = html.unescape(re.sub(r"<[^>]+>", "", line))
        for detail in ("examples/", ".py", "line ", "第 ", " 行", "AssertionError", "+cu", "+cpu", "holds="):
            assert detail not in words, (path, detail, words)
        if path.startswith("zh/"):  # Chinese sentences, not English quoted inside them: code apart, no English run
            prose = html.unescape(re.sub(r"<[^>]+>", "", re.sub(r"<code>.*?</code>", "", line)))
            assert not re.search(r"[A-Za-z]+ [A-Za-z]+ [A-Za-z]{3,}", prose), (path, prose)
    state_dict = lines["modules/state-dict/index.html"]
    assert ('<a href="#ex-modules-state-dict-whole-model"><code>torch.load</code> defaults to '
            "<code>weights_only=True</code>") in html.unescape(state_dict)  # the claim in words, linked to its cell
    for path, summary in (("modules/state-dict/index.html", "For contributors"),
                          ("zh/modules/state-dict/index.html", "给贡献者")):  # fmt: skip
        text = (site / path).read_text()
        box = text[text.index('<details class="mx-checked-more"'):]
        box = box[: box.index("</details>")]
        assert f"<summary>{summary}</summary>" in box and "<code>examples/modules/state&#95;dict.py</code>" in box
        assert "2.4.1+cu121" in box and "no-exception" in box


def test_every_figure_says_what_it_shows_in_the_pages_language(real_site):
    """A figure's alt text is its cell's alt=, translated: not "Figure 1"."""
    site, _ = real_site
    alts = {}
    for file in pages(site):
        if "notebooks" in file.relative_to(site).parts:
            continue
        for alt in re.findall(r'<img alt="([^"]*)" src="data:image/png', file.read_text()):
            alts.setdefault(file.relative_to(site).as_posix(), []).append(html.unescape(alt))
    assert alts, "no figure found"
    for path, found in alts.items():
        for alt in found:
            assert len(alt) > 30 and not re.fullmatch(r"(Figure|图) \d+", alt), (path, alt)
    assert "StepLR" in alts["optimization/learning-rate/index.html"][0]
    assert "学习率" in alts["zh/optimization/learning-rate/index.html"][0]


def test_every_page_has_a_link_to_report_a_problem_prefilled_with_the_page_and_its_language(real_site):
    site, _ = real_site
    repository = yaml_files.load(ROOT / "mkdocs.yml")["repo_url"]
    for file in pages(site):
        path = file.relative_to(site).as_posix()
        links = re.findall(r'<a href="([^"]+)"[^>]*data-report="', file.read_text())
        assert len(links) == 2, (path, links)  # beside the edit button, and at the page's end
        url = urlsplit(html.unescape(links[0]))
        assert f"{url.scheme}://{url.netloc}{url.path}" == f"{repository}/issues/new", path
        query = dict(pair.split("=", 1) for pair in url.query.split("&"))
        title, body = unquote(query["title"]), unquote(query["body"])
        address = SITE_URL + path.removesuffix("index.html")
        zh = path.startswith("zh/")
        prefix = "页面问题：" if zh else "Problem on: "
        assert title.startswith(prefix) and len(title) > len(prefix) + 1, (path, title)
        said = f"页面：{address}\n语言：中文\n" if zh else f"Page: {address}\nLanguage: English\n"
        assert said in body, (path, body)
