"""Turn an example and its recorded result into Markdown for a page.

Code and output go into fenced blocks, so the highlighter escapes every character
of them; the only raw HTML written here is built from escaped values.
"""

from __future__ import annotations

import html
import re

from mkdocs_examples.cells import Example
from mkdocs_examples.results import CellResult, Result

TEXT = {
    "en": {
        "output": "Output",
        "exception": "Raised (as intended)",
        "figure": "Figure",
        "cut": "… {n:,} more characters cut (this page shows at most {limit:,} per cell)",
        "cuda": "This cell needs a CUDA GPU. The machine that built this page has none, so it was not run here.",
        "provenance": "Output produced by {what}.",
        "failed": "This example failed to build",
        "download": "Take it away:",
        "script": "script (.py)",
        "notebook": "notebook with these outputs (.ipynb)",
        "colab": "open in Colab",
    },
    "zh": {
        "output": "输出",
        "exception": "抛出的异常（预期之中）",
        "figure": "图",
        "cut": "…… 其余 {n:,} 个字符已截去（每个单元最多显示 {limit:,} 个字符）",
        "cuda": "此单元需要 CUDA GPU。构建本页的机器没有 GPU，所以这里没有运行它。",
        "provenance": "以上输出由 {what} 实际运行得到。",
        "failed": "示例构建失败",
        "download": "带走这个示例：",
        "script": "脚本（.py）",
        "notebook": "带输出的笔记本（.ipynb）",
        "colab": "在 Colab 中打开",
    },
}


def render_example(example: Example, result: Result | None, cell: str | None, *, lang: str, limit: int) -> str:
    """Markdown for the whole example, or for its cell named ``cell``; code alone when ``result`` is None."""
    text = TEXT.get(lang, TEXT["en"])
    chosen = [example.cell(cell)] if cell else list(example.cells)
    cell_results = {r.cell: r for r in result.cells} if result else {}
    parts: list[str] = []
    shown_output = titled = False
    for item in chosen:
        if item.has("remove-cell"):
            continue
        parts.append(f'<div class="mx-anchor" id="{anchor(example, item.index)}"></div>')  # the error index links here
        if not item.has("remove-input"):
            title, titled = (None if titled else example.display), True  # the first code shown has the file name
            parts.append(_fence(item.source, "python", title=title, linenums=item.lineno))
        if not item.has("remove-output") and item.index in cell_results:
            outputs = _outputs(cell_results[item.index], text, limit)
            ran = cell_results[item.index].skipped is None  # the CUDA note is not an output of this build
            shown_output = shown_output or (ran and bool(outputs))
            parts += outputs
    if result and shown_output:
        parts.append(f'<small class="mx-provenance">{text["provenance"].format(what=_provenance(result.env))}</small>')
    return "\n\n".join(parts) + "\n"


def render_downloads(root: str, example: Example, colab: str | None, *, lang: str) -> str:
    """A line of links to the example's downloads (under ``root``, the site's root as seen from the page)."""
    text = TEXT.get(lang, TEXT["en"])
    base = html.escape(f"{root}downloads/{example.path.removesuffix('.py')}")
    links = [
        f'<a href="{base}.py" download>{text["script"]}</a>',
        f'<a href="{base}.ipynb" download>{text["notebook"]}</a>',
    ]
    if colab:
        links.append(f'<a href="{html.escape(colab)}">{text["colab"]}</a>')
    return f'<p class="mx-downloads">{text["download"]} ' + " · ".join(links) + "</p>\n"


# A code block's title (<span class="filename">examples/x.py</span>), and the number of its first line
_TITLE = re.compile(
    r'(<span class="filename">)([^<]+\.py)(</span>)'
    r'(?:(?=(?:(?!<span class="filename">).){0,400}?__codelineno-\d+-(\d+)"))?',
    re.S,
)


def link_titles(html_text: str, repository: str, known: set[str]) -> str:
    """``html_text`` with the title of each code block of a ``known`` example linking to its file and line."""

    def link(match: re.Match) -> str:
        if match[2] not in known:
            return match[0]
        url = f"{repository}/blob/main/{match[2]}" + (f"#L{match[4]}" if match[4] else "")
        return f'{match[1]}<a href="{html.escape(url)}">{match[2]}</a>{match[3]}'

    return _TITLE.sub(link, html_text)


def github(url: str | None) -> str | None:
    """``https://github.com/owner/repo`` for a repository on GitHub; None otherwise."""
    found = re.match(r"https://github\.com/[\w.-]+/[\w.-]+", url or "")
    return found[0].removesuffix(".git") if found else None


def anchor(example: Example, cell: int) -> str:
    """The id of a cell's place on a page (its code, or its output), the same wherever it is embedded."""
    name = example.cells[cell].name or str(cell)
    return "ex-" + re.sub(r"[^A-Za-z0-9]+", "-", f"{example.path.removesuffix('.py')}-{name}").strip("-").lower()


def render_error(message: str, *, lang: str) -> str:
    """A visible box with a build error, for pages rendered by `mkdocs serve`."""
    title = TEXT.get(lang, TEXT["en"])["failed"]
    body = _fence(message, "text")
    return (
        f'!!! failure "{title}"\n\n' + "\n".join("    " + line if line else line for line in body.splitlines()) + "\n"
    )


def _outputs(cell: CellResult, text: dict[str, str], limit: int) -> list[str]:
    if cell.skipped == "requires-cuda":
        return [f'!!! info "CUDA"\n\n    {text["cuda"]}']
    parts = []
    output = cell.output
    if cell.truncated:
        output = output.rstrip("\n") + "\n" + text["cut"].format(n=cell.truncated, limit=limit)
    if output.strip():
        parts.append(_fence(output.rstrip("\n"), "text", title=text["output"]))
    if cell.traceback:
        parts.append(_fence(cell.traceback.rstrip("\n"), "pytb", title=text["exception"]))
    for number, image in enumerate(cell.images, start=1):
        parts.append(f"![{text['figure']} {number}](data:image/png;base64,{image})")
    return parts


def _provenance(env: dict[str, str]) -> str:
    device = {"cpu": "CPU", "cuda": "CUDA"}.get(env.get("device", ""), env.get("device", "?"))
    what = [f"torch {env['torch']}"] if "torch" in env else []
    what += [device, f"Python {env.get('python', '?')}"]
    return html.escape(" · ".join(what))


def _fence(body: str, lang: str, *, title: str | None = None, linenums: int | None = None) -> str:
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    ticks = "`" * max(3, longest + 1)
    options = "".join(
        [f' title="{html.escape(title)}"' if title else "", f' linenums="{linenums}"' if linenums else ""]
    )
    return f"{ticks}{lang}{options}\n{body.rstrip(chr(10))}\n{ticks}"
