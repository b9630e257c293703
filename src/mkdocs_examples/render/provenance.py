"""Which machine produced an output, in words: the line under a page's output, and a recording's machine.

:func:`machine` is the one description of a GPU recording's machine (GPU, CUDA, torch,
Python, date): pages show it in their provenance line, notebooks in the note under a
recorded output. Every value in these lines comes from a recording or from the example's own
process, so from whoever wrote them: each character that HTML or Markdown reads is written as
a character reference (``{onerror=...}`` in a GPU's name is text, never an attribute).
"""

from __future__ import annotations

import html
import re

from mkdocs_examples.recordings.store import Published, Recording
from mkdocs_examples.texts import text


def device_label(env: dict[str, str]) -> str:
    """The device an output was made on, as a tab label: ``CPU``, ``CUDA``, ``MPS``."""
    device = env.get("device", "?")
    # a tab's label is read as Markdown: a device of another name keeps its letters and digits only
    return {"cpu": "CPU", "cuda": "CUDA", "mps": "MPS"}.get(device) or re.sub(r"[^\w.+-]", "", device)[:20] or "?"


def machine(recording: Recording) -> str:
    """A recording's machine and versions: ``NVIDIA H100 · CUDA 13.0 · torch 2.11.0 · Python 3.12.3 · 2026-01-02``."""
    env = recording.env
    what = [env.get("gpu") or device_label(env)]
    what += [f"CUDA {env['cuda']}"] if env.get("cuda") else []
    what += [f"torch {env.get('torch', '?')}", f"Python {env.get('python', '?')}", recording.date]
    return " · ".join(what)


def built_line(env: dict[str, str], lang: str) -> str:
    """The provenance line of this build's outputs: torch, device, Python."""
    what = [f"torch {env['torch']}"] if "torch" in env else []
    what += [device_label(env), f"Python {env.get('python', '?')}"]
    line = text(lang)["provenance"].format(what=" · ".join(what))
    return _block("mx-provenance", line)


def recorded_line(published: Published, lang: str) -> str:
    """The provenance line of a recorded output: its machine; a torch unlike the site's, said so."""
    recording = published.recording
    assert recording
    words = text(lang)
    line = words["recorded"].format(what=machine(recording))
    env = recording.env
    if published.site and any(env.get(k, "").split("+")[0] != v.split("+")[0] for k, v in published.site.items()):
        versions = " · ".join(f"{name.replace('python', 'Python')} {v}" for name, v in published.site.items())
        line += ("" if line.endswith("。") else " ") + words["other-torch"].format(versions=versions)
    return _block("mx-provenance mx-recorded", line)


# Every character Markdown gives a meaning to within a line, as a numeric character reference: Markdown passes
# these through as they are, and the browser shows the characters. (Raw HTML is no shelter: in a
# tab of content, indented, Markdown reads inside it.)
_MARKDOWN = str.maketrans({c: f"&#{ord(c)};" for c in "!\"'()*<>[\\]_`{|}~"})


def inline(line: str) -> str:
    """``line`` as text that neither HTML nor Markdown (attr_list and all) reads anything into."""
    return html.escape(line, quote=False).translate(_MARKDOWN)


def _block(classes: str, line: str) -> str:
    return f'<small class="{classes}">{inline(line)}</small>'
