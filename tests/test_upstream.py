"""Other packages' private names: each used in one adapter function (src/mkdocs_examples/mkdocs/upstream.py),
checked here against the installed package, and nowhere else.

A test per adapter names the version the adapter was checked against and fails, saying what to
check again, when another is installed; then it runs the adapter against the real package. The
last test reads every module of the engine, its site plugins included, and tools/ (their syntax trees) for a
private name of another package used outside upstream.py.
"""

from __future__ import annotations

import ast
import functools
import shutil
import sys
import threading
import time
from importlib.metadata import version
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import ROOT
from mkdocs.config import load_config
from mkdocs.livereload import LiveReloadServer
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from watchdog.observers import Observer

from mkdocs_examples.mkdocs import upstream

ADAPTERS = ROOT / "src" / "mkdocs_examples" / "mkdocs" / "upstream.py"
FOLDERS = [ROOT / "src", ROOT / "tools"]
FIXTURE = Path(__file__).parent / "site"


def checked(package: str, against: str, what: str) -> None:
    installed = version(package)
    assert installed == against, (
        f"{package} {installed} is installed; mkdocs_examples/mkdocs/upstream.py was checked against {against}: "
        f"check again that {what}, then set the version there and here"
    )


# -- mkdocs-material --------------------------------------------------------------------------------


def test_materials_search_worker_takes_our_query_rewrite_pipeline_step_field_and_share():
    checked("mkdocs-material", "9.8.1", "its search worker (material/templates/assets/javascripts/workers/"
            "search.*.min.js) still rewrites Chinese queries, lists the fields, builds its index and scores a "
            "result as upstream.material_search_worker_with expects")  # fmt: skip
    assert upstream.MATERIAL == "9.8.1"
    original = upstream.material_search_worker().read_text(encoding="utf-8")
    worker = upstream.material_search_worker_with("ptQuery", "ptOneWord", ["phrases"], "ptShare")
    assert 'join("* ")' in original and 'join("* ")' not in worker
    assert "=ptQuery(" in worker and ",this.index)" in worker
    assert worker.count('["title","text","tags","phrases"]') == 2
    assert worker.count('this.pipeline.add(ptOneWord),this.ref("location")') == 1
    assert worker.count("ptShare(") == 1 and "ptShare" not in original


def test_a_worker_that_changed_is_refused_not_patched_half(monkeypatch, tmp_path):
    changed = tmp_path / "search.0.min.js"
    changed.write_text('["title","text","tags"] ["title","text","tags"] this.ref("location")', encoding="utf-8")
    monkeypatch.setattr(upstream, "material_search_worker", lambda: changed)
    with pytest.raises(RuntimeError, match="rewrite of Chinese queries is not found"):
        upstream.material_search_worker_with("ptQuery", "ptOneWord", ["phrases"], "ptShare")


# -- nbconvert --------------------------------------------------------------------------------------


def test_nbconverts_exporters_compile_each_template_once(monkeypatch):
    checked("nbconvert", "7.17.2", "its TemplateExporter still makes each exporter's Jinja environment in "
            "`_create_environment`, which sets no bytecode cache")  # fmt: skip
    assert upstream.NBCONVERT == "7.17.2"
    import jinja2
    import nbformat
    from nbconvert import HTMLExporter

    upstream.nbconvert_compile_templates_once()
    upstream.nbconvert_compile_templates_once()  # once per process: not wrapped twice
    monkeypatch.setattr(upstream, "_COMPILED", {})  # what earlier tests of this process compiled
    compiled = []
    real = jinja2.Environment.compile
    monkeypatch.setattr(jinja2.Environment, "compile", lambda env, *a, **k: compiled.append(1) or real(env, *a, **k))
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    first = HTMLExporter().from_notebook_node(notebook)[0]
    templates = len(compiled)
    assert templates and HTMLExporter().from_notebook_node(notebook)[0] == first
    assert len(compiled) == templates  # the second exporter compiled none


# -- mkdocs-jupyter ---------------------------------------------------------------------------------


def test_jupyters_cache_tells_which_renderings_a_build_used(tmp_path):
    checked("mkdocs-jupyter", "0.26.3", "its plugin still keeps the cache files a build used in "
            "`_used_cache_paths`, and deletes the others in `on_post_build`")  # fmt: skip
    assert upstream.JUPYTER == "0.26.3"
    from mkdocs.config import load_config
    from mkdocs.structure.files import File
    from mkdocs.structure.pages import Page
    from mkdocs_jupyter.plugin import Plugin  # type: ignore[import-untyped]

    docs, cache = tmp_path / "docs", tmp_path / "cache"
    docs.mkdir()
    cache.mkdir()
    (docs / "a.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n')
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n")
    config = load_config(str(tmp_path / "mkdocs.yml"))
    plugin = Plugin()
    errors, _ = plugin.load_config({"cache_dir": str(cache)})
    assert not errors
    plugin.on_pre_build(config)
    file = File("a.ipynb", str(docs), str(tmp_path / "site"), use_directory_urls=True)
    plugin.on_pre_page(Page(None, file, config), config, None)
    (used,) = upstream.jupyter_used_cache(plugin)
    assert used.parent == cache and used.suffix == ".json"
    used.write_text("{}")
    (stale := cache / "stale.json").write_text("{}")
    plugin.on_post_build(config)  # what it deletes: what the adapter does not name
    assert used.exists() and not stale.exists()


# -- mkdocs -----------------------------------------------------------------------------------------


def test_mkdocs_live_reload_script_goes_through_our_wrapper():
    checked("mkdocs", "1.6.1", "`mkdocs serve` still adds its live-reload script to each page in "
            "LiveReloadServer._inject_js_into_html(content, epoch)")  # fmt: skip
    assert upstream.MKDOCS == "1.6.1"
    from mkdocs.livereload import LiveReloadServer

    server = SimpleNamespace(_inject_js_into_html=functools.partial(LiveReloadServer._inject_js_into_html, None))
    seen = []

    def wrap(inject):
        return lambda content, epoch: seen.append(epoch) or inject(content, epoch)

    upstream.mkdocs_wrap_live_reload(server, wrap)
    served = server._inject_js_into_html(b"<html><body>x</body></html>", 42)
    assert seen == [42] and b"livereload(42, " in served


@pytest.fixture
def page(tmp_path: Path) -> tuple[Page, Files, object]:
    """An English page of the fixture site that links to another, read and ready to render."""
    root = tmp_path / "site"
    shutil.copytree(FIXTURE, root)
    (root / "docs" / "en" / "index.md").write_text("# The title\n\nSee [the other](other.md).\n")
    (root / "docs" / "en" / "other.md").write_text("# Other\n")
    config = load_config(str(root / "mkdocs.yml"), docs_dir=str(root / "docs" / "en"))
    files = Files([File(name, config.docs_dir, config.site_dir, False) for name in ("index.md", "other.md")])
    page = Page(None, files.get_file_from_path("index.md"), config)
    page.read_source(config)
    return page, files, config


def test_a_replaced_render_is_what_the_page_renders_with(page):
    checked("mkdocs", "1.6.1", "a page's render is still `page.render(config, files)`, called between the events "
            "on_page_markdown and on_page_content, with no event that skips it")  # fmt: skip
    page, files, config = page
    called = []
    upstream.mkdocs_replace_render(page, lambda config, files: called.append((config, files)))
    page.render(config, files)
    assert called == [(config, files)] and page.content is None  # the Markdown was not rendered


def test_the_rendered_title_is_what_a_render_found_and_what_the_title_gives(page):
    checked("mkdocs", "1.6.1", "the title a render finds is still `Page._title_from_render`, which `page.title` "
            "gives after the navigation's and the front matter's")  # fmt: skip
    page, files, config = page
    assert upstream.mkdocs_rendered_title(page) is None
    page.render(config, files)
    assert upstream.mkdocs_rendered_title(page) == "The title" == page.title
    fresh = Page(None, page.file, config)
    fresh.read_source(config)
    fresh.markdown = "No heading here"  # a title only a render could set
    upstream.mkdocs_set_rendered_title(fresh, "Set")
    fresh.content = "<p>No heading here</p>"
    assert fresh.title == "Set"


def test_the_lookups_of_a_render_are_its_relative_links(page):
    checked("mkdocs", "1.6.1", "a render still resolves each relative link with `files.get_file_from_path`")
    page, files, config = page
    with upstream.mkdocs_recorded_lookups(files) as looked:
        page.render(config, files)
    assert looked == {"other.md": files.get_file_from_path("other.md")}
    assert 'href="other.html"' in page.content  # use_directory_urls off: File's default
    assert "get_file_from_path" not in vars(files)  # the lookup is the class's again


def serving(server: LiveReloadServer) -> threading.Thread:
    """``server`` serving in a thread (its file watcher started), until ``server.shutdown()``."""
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    return thread


def test_a_server_given_another_observer_rebuilds_on_a_change_it_reports(tmp_path):
    checked("mkdocs", "1.6.1", "`mkdocs serve` still watches through `LiveReloadServer.observer`, which it starts "
            "in `serve` and uses only through what every watchdog observer has")  # fmt: skip
    docs = tmp_path / "docs"
    docs.mkdir()
    built = threading.Event()
    server = LiveReloadServer(builder=built.set, host="127.0.0.1", port=0, root=str(tmp_path))
    server.watch(str(docs))  # watched by MkDocs' own observer...
    server.unwatch(str(docs))
    upstream.mkdocs_set_observer(server, Observer())
    server.watch(str(docs))  # ...then by the new one
    thread = serving(server)
    try:
        time.sleep(0.3)  # the observer's first look at the folder
        (docs / "page.md").write_text("# Page\n")
        assert built.wait(5), "no rebuild: the server's observer does not reach its rebuild"
        assert isinstance(server.observer, Observer) and server.observer.is_alive()
    finally:
        server.shutdown()
        thread.join(5)


def test_a_theme_env_wrapped_is_the_one_that_lists_the_theme_files_and_reaches_on_env(tmp_path):
    checked("mkdocs", "1.6.1", "a build still makes its template environment with `config.theme.get_env()` once, "
            "before `files.add_files_from_theme` lists the theme's files and the event on_env")  # fmt: skip
    from mkdocs.commands.build import build

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: Wrapped\ntheme:\n  name: mkdocs\n")
    config = load_config(str(tmp_path / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    listed: list[str] = []
    seen: list[object] = []

    def wrap(env):
        list_templates = env.list_templates
        env.list_templates = lambda **kwargs: listed.append("listed") or list_templates(**kwargs)
        return env

    def on_env(env, *, config, files):
        seen.append(env)
        return env

    upstream.mkdocs_wrap_theme_env(config.theme, wrap)
    config.plugins.events["env"].append(on_env)
    build(config)
    assert listed == ["listed"] and len(seen) == 1 and seen[0].list_templates.__name__ == "<lambda>"
    assert (tmp_path / "site" / "css" / "base.css").is_file()  # a static file of the theme, found by the listing


# -- mkdocs-static-i18n ----------------------------------------------------------------------------


def test_static_i18n_merges_into_the_empty_index_of_a_disabled_search_plugin(tmp_path):
    checked("mkdocs-static-i18n", "1.3.1", "its `reconfigure_search_index` still fills `search_index.entries` of the "
            "search plugin after its build, enabled or not")  # fmt: skip
    assert upstream.STATIC_I18N == "1.3.1"
    root = tmp_path / "site"
    shutil.copytree(FIXTURE, root)
    text = (root / "mkdocs.yml").read_text().replace("plugins:\n", "plugins:\n  - search\n", 1)
    (root / "mkdocs.yml").write_text(text.replace("  - examples:\n", "  - examples:\n      enabled: false\n", 1))
    config = load_config(str(root / "mkdocs.yml"))
    search = config.plugins["material/search"]
    search.config.enabled = False
    upstream.static_i18n_empty_search_index(search)
    i18n = config.plugins["i18n"]
    i18n.search_entries = [{"location": "", "title": "Fixture", "text": ""}]
    i18n.reconfigure_search_index(config)  # what static-i18n does after its build
    assert search.search_index.entries == [{"location": "", "title": "Fixture", "text": ""}]
    assert not (root / "site" / "search" / "search_index.json").exists()


# -- no other module touches another package's private names ---------------------------------------

# What the check allows, and why:
ALLOWED_ATTRIBUTES = {
    # a namedtuple's methods start with `_` so as not to clash with its fields: public, documented
    "_replace", "_asdict", "_fields", "_make",
    # os._exit is documented: how a forked child leaves without the interpreter's shutdown
    "_exit",
}  # fmt: skip
# (module, name): a private name of the standard library, with why no public one does
ALLOWED_STDLIB = {
    # argparse documents add_subparsers() but not the class it returns: a type hint, checked by mypy (typeshed)
    ("argparse", "_SubParsersAction"),
}
_STDLIB_PRIVATE_CALLS = {
    # multiprocessing.util._exit_function: what `python example.py` runs at exit to end multiprocessing's
    # processes; the forked child leaves by os._exit and runs it itself (execute/child/runner.py), and the
    # child imports nothing of MkDocs (upstream.py is the MkDocs adapter's)
    ("src/mkdocs_examples/execute/child/runner.py", "_exit_function"),
}


def _ours(trees: list[ast.Module]) -> set[str]:
    """The private names our own code defines: functions, classes, module names, attributes of self/cls."""
    names = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.alias):
                names.add(node.asname or node.name.split(".")[0])
            elif (
                isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            ):  # fmt: skip
                names.add(node.attr)
    return {name for name in names if name.startswith("_")}


def _foreign_imports(tree: ast.Module) -> set[str]:
    """The names a module imports from other packages (what it binds: `material`, `Page`); not the standard
    library's, whose documented attributes the forked child sets as `python example.py` has them (sys.argv,
    sys.stdout, warnings.showwarning, tempfile.tempdir; os._exit, to name the line an example left by)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.asname or a.name.split(".")[0] for a in node.names if _other_package(a.name)}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and _other_package(node.module or ""):
            names |= {a.asname or a.name for a in node.names}
    return names


def _other_package(module: str) -> bool:
    top = module.split(".")[0]
    return top != "mkdocs_examples" and top not in sys.stdlib_module_names


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def private_uses(path: str, tree: ast.Module, ours: set[str]) -> list[str]:
    """What ``tree`` (the module at ``path``) does with other packages' private names."""
    found = []
    foreign = _foreign_imports(tree)
    annotations = {
        id(inner)
        for node in ast.walk(tree)
        for annotation in (
            [node.returns, *(a.annotation for a in [*node.args.args, *node.args.kwonlyargs])]
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else
            [node.annotation] if isinstance(node, ast.AnnAssign) else []
        )
        if annotation is not None
        for inner in ast.walk(annotation)
    }  # fmt: skip
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and not (node.module or "").startswith(
            "mkdocs_examples"
        ):
            parts = (node.module or "").split(".")
            found += [f"{node.lineno}: from {node.module} import {a.name}" for a in node.names if _private(a.name)]
            found += [f"{node.lineno}: from {node.module}" for part in parts if _private(part)][:1]
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names
                      if any(_private(part) for part in a.name.split("."))]  # fmt: skip
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            base = node.value
            if (isinstance(base, ast.Name) and base.id in ("self", "cls")) or node.attr in ALLOWED_ATTRIBUTES:
                continue
            if isinstance(base, ast.Name) and (base.id, node.attr) in ALLOWED_STDLIB and id(node) in annotations:
                continue
            if (path, node.attr) in _STDLIB_PRIVATE_CALLS or (node.attr in ours and not (
                isinstance(base, ast.Name) and base.id in foreign
            )):
                continue  # our own private name, on an object of ours
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                root = _root(target) if isinstance(target, ast.Attribute) else None
                if isinstance(root, ast.Name) and root.id in foreign:  # a function of another package replaced
                    found.append(f"{node.lineno}: {ast.unparse(target)} = …")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and node.args:
            root = _root(node.args[0])
            if isinstance(root, ast.Name) and root.id in foreign:
                found.append(f"{node.lineno}: {ast.unparse(node)}")
    return sorted(dict.fromkeys(found), key=lambda use: int(use.split(":")[0]))  # once each: `x._y = x._y`


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _modules() -> list[tuple[str, ast.Module]]:
    paths = [path for folder in FOLDERS for path in sorted(folder.rglob("*.py")) if path != ADAPTERS]
    return [(path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"))) for path in paths]


def test_the_check_finds_private_names_of_other_packages():
    source = (
        "import material\n"
        "from mkdocs.livereload import LiveReloadServer\n"
        "from jieba import _get_abs_path\n"
        "import mkdocs_jupyter._private\n"
        "class Ours:\n"
        "    def __init__(self):\n"
        "        self._held = False\n"
        "    def use(self, plugin, server, url):\n"
        "        self._held = plugin._used_cache_paths\n"
        "        server._inject_js_into_html = None\n"
        "        LiveReloadServer.serve = None\n"
        "        setattr(material, 'x', 1)\n"
        "        return url._replace(path='/'), self._held, Ours._held\n"
    )
    tree = ast.parse(source)
    found = private_uses("x.py", tree, _ours([tree]))
    assert [line.split(":")[0] for line in found] == ["3", "4", "9", "10", "11", "12"], found


def test_no_module_but_upstream_touches_another_packages_private_names():
    modules = _modules()
    ours = _ours([tree for _, tree in modules])
    found = [f"{path}:{use}" for path, tree in modules for use in private_uses(path, tree, ours)]
    assert not found, "use other packages' private names in mkdocs_examples/mkdocs/upstream.py only:\n" + "\n".join(
        found
    )


def test_upstream_is_where_the_adapters_are_said_to_be():
    assert Path(upstream.__file__) == ADAPTERS
