"""Notebook views: each example's executed notebook as a page of its own, in each language.

MkDocs hook (registered under `hooks:` in mkdocs.yml) between the `examples` plugin and
mkdocs-jupyter. mkdocs-static-i18n hands mkdocs-jupyter only the files of the docs folder
(its issue #198), so after i18n has sorted the files of a language build, this hook adds one
notebook per example, written into `.cache/notebook-views/` (never into `docs/`), and lets
mkdocs-jupyter render them: `/notebooks/<path>/` and `/zh/notebooks/<path>/`.

- The notebook is the one readers download: the outputs the site shows (CUDA cells from their
  recordings). The view's title is that of the page that embeds the example, in the view's
  language, with a link back to it.
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

from mkdocs_examples.publish import notebooks

FOLDER = ".cache/notebook-views"
CSS = "assets/notebook-views.css"
TEXT = {
    "en": {"title": "{title}: the notebook", "back": "Back to the page", "link": "notebook view",
           "description": "{title}: the example as a notebook, with the outputs the page shows."},
    "zh": {"title": "{title}：笔记本", "back": "返回页面", "link": "笔记本视图",
           "description": "{title}：示例的笔记本版本，带有页面上展示的输出。"},
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


_VIEWS: dict[str, tuple[str, str, str | None]] = {}  # src_uri of a view: its title, description, page URL


@event_priority(-150)  # after static-i18n (-100) has sorted this language's files
def on_files(files: Files, *, config) -> Files:
    plugin, jupyter = _examples(config), config.plugins.get("mkdocs-jupyter")
    if plugin is None or jupyter is None or config.extra.get("preview"):  # hooks/serve.py: no views
        return files
    lang = _language(config)
    text = TEXT.get(lang, TEXT["en"])
    titles = _titles(plugin, lang)
    prefix = "" if lang == _default(config) else f"{lang}/"  # static-i18n puts other languages under /<lang>/
    root = Path(config.config_file_path).parent
    # one notebook per example for every language (the title and the link back are added to the page), so
    # that mkdocs-jupyter renders each once and its cache, evicting what a build did not use, serves both
    jupyter.config["cache_dir"] = str(root / ".cache/mkdocs-jupyter")
    added = []
    for outcome in plugin.outcomes.values():
        if outcome.failure is not None:
            continue
        stem = outcome.example.path.removesuffix(".py")
        source = root / FOLDER / f"{prefix}notebooks/{stem}.ipynb"  # the same notebook in each language's tree
        book = notebooks.notebook(outcome.example, outcome.result, plugin.recording_of(outcome.example))
        wanted = notebooks.dumps(book)
        if not source.exists() or source.read_text(encoding="utf-8") != wanted:
            source.parent.mkdir(parents=True, exist_ok=True)
            source.write_text(wanted, encoding="utf-8")
        file = File(f"{prefix}notebooks/{stem}.ipynb", str(root / FOLDER), config.site_dir, config.use_directory_urls)
        added.append(file)
        page, title = titles.get(outcome.example.path, (None, outcome.example.display))
        back = "../" * (stem.count("/") + 2) + page if page is not None else None  # both under [<lang>/]
        _VIEWS[file.src_uri] = (text["title"].format(title=title), text["description"].format(title=title), back)
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
        title, description, back = _VIEWS.get(page.file.src_uri, (None, None, None))
        page.title = title or page.title
        page.meta["description"] = description
        if back is not None:
            label = TEXT.get(_language(config), TEXT["en"])["back"]
            content = f'<p><a href="{html.escape(back)}">{label}</a></p>\n' + content
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
