"""Which machine produced an output, in words: the line under a page's output, and a recording's machine.

:func:`machine` is the one description of a GPU recording's machine (GPU, CUDA, torch,
Python, date): pages show it in their provenance line, notebooks in the note under a
recorded output.
"""

from __future__ import annotations

import html

from mkdocs_examples.recordings.store import Published, Recording
from mkdocs_examples.texts import text


def device_label(env: dict[str, str]) -> str:
    """The device an output was made on, as a tab label: ``CPU``, ``CUDA``, ``MPS``."""
    device = env.get("device", "?")
    return {"cpu": "CPU", "cuda": "CUDA", "mps": "MPS"}.get(device, device)


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
    return f'<small class="mx-provenance">{html.escape(line)}</small>'


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
    return f'<small class="mx-provenance mx-recorded">{html.escape(line)}</small>'
