"""The per-language downloads: the take-away line of each example a page embeds, and the files it links.

A page of language ``lang`` links ``<prefix>downloads/<path>.py`` and ``.ipynb`` (``prefix``:
that language's folder, ``zh/`` or none), which carry the example's notes in that language
(publish/notebooks.py writes them), its notebook view in that language where the site has views,
and "Open in Colab" where the site's repository is on GitHub. Only an example that ran in this
build without failing gets a line and files.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mkdocs_examples.publish import notebooks
from mkdocs_examples.recordings.store import Recording
from mkdocs_examples.render.page import render_downloads
from mkdocs_examples.results import Result
from mkdocs_examples.source.cells import Example


def take_away(
    examples: Iterable[Example], *, page_url: str, prefix: str, lang: str, views: dict[str, str],
    repository: str | None, branch: str,
) -> dict[str, str]:  # fmt: skip
    """The take-away line of each of ``examples`` (those of a page that built, in the order it embeds them),
    by path, for the page at ``page_url``; ``views``: example path: the URL of its view in this language."""
    root = "../" * page_url.count("/")  # the site's root, relative to this page
    lines = {}
    for example in examples:
        view = views.get(example.path)
        colab = notebooks.colab_url(repository, example, branch, lang) if repository else None  # notebooks/ on GitHub
        lines[example.path] = render_downloads(
            root + prefix, example, colab, lang=lang, view=root + view if view else None
        )
    return lines


def write(
    site_dir: Path, languages: dict[str, str], built: list[tuple[Example, Result, Recording | None]], *,
    seed: int = 0, threads: int = 1, kept: dict[tuple[str, str], tuple[tuple[Any, ...], tuple[str, str]]] | None = None,
) -> None:  # fmt: skip
    """Each language's files, under ``<site_dir>/<prefix>downloads/``; ``languages``: each language, its prefix;
    ``seed`` and ``threads``: how the engine ran the examples (the plugin's options), as notebooks start;
    ``kept``: the files as the last build made them (`mkdocs serve`), updated."""
    for lang, prefix in languages.items():
        notebooks.write_downloads(site_dir / prefix / "downloads", built, lang=lang, seed=seed, threads=threads,
                                  kept=kept)  # fmt: skip
