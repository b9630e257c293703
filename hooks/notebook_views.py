"""Notebook views: each example's executed notebook as a page of its own, in each language.

MkDocs hook (registered under `hooks:` in mkdocs.yml) between the `examples` plugin and
mkdocs-jupyter. mkdocs-static-i18n hands mkdocs-jupyter only the files of the docs folder
(its issue #198), so after i18n has sorted the files of a language build, this hook adds one
notebook per example, written into `.cache/notebook-views/` (never into `docs/`), and lets
mkdocs-jupyter render them: `/notebooks/<path>/` and `/zh/notebooks/<path>/`.

- The notebook is the one readers download: the outputs the site shows (CUDA cells from their
  recordings), under a heading with the title of the page that embeds the example, and a link
  back to it.
- mkdocs-jupyter inlines JupyterLab's stylesheets, about 590 KB, into every page; the views drop
  them and share one small stylesheet of their own, `notebook_views.css`, with Material's code colors.
- Views are kept out of search: the page that embeds the example is the one to find.
- Every page's "Take it away" line links the view of its example, in the page's language.
"""

from __future__ import annotations

import html
import logging
import re
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

from mkdocs_examples import notebooks

FOLDER = ".cache/notebook-views"
CSS = "assets/notebook-views.css"
TEXT = {
    "en": {"title": "{title}: the notebook", "back": "Back to the page", "link": "notebook view"},
    "zh": {"title": "{title}：笔记本", "back": "返回页面", "link": "笔记本视图"},
}
_STYLE = re.compile(r"<style[^>]*>.*?</style>\s*", re.S)
_DOWNLOAD = re.compile(r'(<a href="((?:\.\./)*)downloads/([^"]+)\.ipynb" download>[^<]*</a>)')


def on_config(config):
    logging.getLogger("mkdocs.plugins.mkdocs_jupyter").setLevel(logging.WARNING)  # a line per notebook
    return config


def _language(config) -> str:
    return config.theme.get("language", "en")


def _examples(config):
    plugin = config.plugins.get("examples")
    return plugin if plugin is not None and plugin.engine is not None else None


@event_priority(-150)  # after static-i18n (-100) has sorted this language's files
def on_files(files: Files, *, config) -> Files:
    plugin, jupyter = _examples(config), config.plugins.get("mkdocs-jupyter")
    if plugin is None or jupyter is None:
        return files
    lang = _language(config)
    text = TEXT.get(lang, TEXT["en"])
    titles = _titles(plugin, lang)
    prefix = "" if lang == _default(config) else f"{lang}/"  # static-i18n puts other languages under /<lang>/
    folder = Path(config.config_file_path).parent / FOLDER
    added = []
    for outcome in plugin.outcomes.values():
        if outcome.failure is not None:
            continue
        example = outcome.example
        stem = example.path.removesuffix(".py")
        page, title = titles.get(example.path, (None, example.display))
        book = notebooks.notebook(example, plugin._combined(outcome))
        heading = f"# {text['title'].format(title=title)}"
        if page:  # the view is at [<lang>/]notebooks/<stem>/; the page at [<lang>/]<page>
            back = "../" * (stem.count("/") + 2) + page
            heading += f"\n\n[{text['back']}]({back})"
        book["cells"].insert(0, {"cell_type": "markdown", "id": "view-title", "metadata": {}, "source": heading})
        source = folder / f"{prefix}notebooks/{stem}.ipynb"
        wanted = notebooks.dumps(book)
        if not source.exists() or source.read_text(encoding="utf-8") != wanted:
            source.parent.mkdir(parents=True, exist_ok=True)
            source.write_text(wanted, encoding="utf-8")
        added.append(File(f"{prefix}notebooks/{stem}.ipynb", str(folder), config.site_dir, config.use_directory_urls))
    # mkdocs-jupyter caches each rendered notebook and, after each build, evicts what that build did not
    # use: each language keeps a cache of its own, or the two builds would evict each other's
    jupyter.config["cache_dir"] = str(Path(config.config_file_path).parent / ".cache/mkdocs-jupyter" / lang)
    for file in jupyter.on_files(Files(added), config):
        files.append(file)
    files.append(File.generated(config, CSS, abs_src_path=str(Path(__file__).parent / "notebook_views.css")))
    return files


def _titles(plugin, lang: str) -> dict[str, tuple[str, str]]:
    """Each example's first page in language ``lang``: its URL (relative to the language's root) and title."""
    found: dict[str, tuple[str, str]] = {}
    for page, (title, blocks) in sorted(plugin.pages.items()):
        parts = page.split("/", 2)  # docs/<lang>/<file>.md
        if len(parts) < 3 or parts[1] != lang:
            continue
        url = re.sub(r"(^|/)index\.md$", r"\1", parts[2]).removesuffix(".md")
        url = url + "/" if url and not url.endswith("/") else url
        for block in blocks:
            found.setdefault(block.path, (url, title))
    return found


def _is_view(page) -> bool:
    return "notebooks/" in page.file.src_uri and page.file.src_uri.endswith(".ipynb")


def on_page_content(content: str, *, page, config, files) -> str:
    if _is_view(page):
        page.meta["search"] = {"exclude": True}  # the page that embeds the example is the one to find
        page.edit_url = _edit_url(page, config)
        return content
    if _examples(config) is None:
        return content
    lang = _language(config)
    prefix = "" if lang == _default(config) else f"{lang}/"
    link = TEXT.get(lang, TEXT["en"])["link"]

    def add(match: re.Match) -> str:
        url = html.escape(f"{match[2]}{prefix}notebooks/{match[3]}/")
        return f'{match[1]} · <a href="{url}">{link}</a>'

    return _DOWNLOAD.sub(add, content)


def _edit_url(page, config) -> str | None:
    """Where to edit a view: its example, not the generated notebook."""
    if not config.repo_url or not config.edit_uri:
        return None
    stem = page.file.src_uri.split("notebooks/", 1)[1].removesuffix(".ipynb")
    edit = config.edit_uri.rstrip("/").rsplit("/", 1)[0]  # edit/main/docs -> edit/main
    return f"{config.repo_url.rstrip('/')}/{edit}/examples/{stem}.py"


def _default(config) -> str:
    i18n = config.plugins.get("i18n")
    return i18n.default_language if i18n is not None else _language(config)


def on_post_page(output: str, *, page, config) -> str:
    """A view without JupyterLab's inline stylesheet (574 KB a page), with the site's small one."""
    if not _is_view(page):
        return output
    root = "../" * page.url.count("/")
    start = output.find('class="md-content"')  # the notebook's own styles are all inside the content
    output = output[:start] + _STYLE.sub("", output[start:])
    return output.replace("</head>", f'<link rel="stylesheet" href="{root}{CSS}">\n</head>', 1)
