"""The code-fence helpers: a fence, or a code span, longer than any run of backticks inside what it holds."""

from __future__ import annotations

import html
import re


def fence(body: str, lang: str = "", *, title: str | None = None, linenums: int | None = None) -> str:
    """``body`` as a fenced code block (pymdownx.superfences), with an optional title and first line number."""
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    ticks = "`" * max(3, longest + 1)
    options = "".join(
        [f' title="{html.escape(title)}"' if title else "", f' linenums="{linenums}"' if linenums else ""]
    )
    return f"{ticks}{lang}{options}\n{body.rstrip(chr(10))}\n{ticks}"


def code_span(text: str) -> str:
    """``text`` as a Markdown code span, whatever backticks it holds."""
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    return f"{ticks} {text} {ticks}" if "`" in text else f"`{text}`"
