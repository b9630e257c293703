"""The line at the end of a page that says on which torch releases its examples were checked.

Every cell of an example runs in each environment, its hidden checks (``remove-cell``
assertions) too. A page names the releases where every example it embeds ran as it is now:
the build's own, and each published recording of the same source. A check that failed in a
recorded environment (``record --keep-failed``) does not fail the build; the line says "does
not hold on torch X", and "it holds from torch Y on" where it fails only on releases older than
every release where it holds. (It fails the build, as always, on the build's own release.)
Consecutive minor releases that were all checked are named as a range, with an en dash ("torch
2.4\u20132.15 (12 releases)"); a release between two checked ones that was not checked itself
breaks the range, so a range never claims a release nobody ran. Recordings on a GPU in which every
cell ran as it is now add a sentence of their own ("Checked on CUDA with torch 2.11.0 too.").

A check whose cell declares the releases where it holds (``holds=">=2.8"``, source/holds.py) is
said in those words instead: "A claim of examples/x.py (line 12) holds on torch 2.8 and later: its
check fails on torch 2.4\u20132.7." A failure that no declaration covers is a problem of the strict
build (recordings/declared.py); a build that goes on still says it, as above.

Where a release prints other outputs than the build (:func:`differing`: a cell the page shows,
noise aside, measurements left out), the line says where, and that the notes under the outputs
show it: "outputs differ on torch 2.9.1, 2.14.1".
"""

from __future__ import annotations

from collections.abc import Iterable

from mkdocs_examples.recordings.declared import Verdict
from mkdocs_examples.recordings.store import Recording, release
from mkdocs_examples.render.attribution import change_key, version_key
from mkdocs_examples.render.provenance import inline
from mkdocs_examples.results import Result
from mkdocs_examples.source.cells import Example
from mkdocs_examples.texts import text as texts


def differing(example: Example, result: Result, recordings: list[Recording]) -> set[str]:
    """The releases of ``recordings`` in which a cell of ``example`` that pages show printed other than the
    build's ``result``, the machine's noise aside; a measurement (``varies``) and a cell whose check failed
    there are left out, as pages leave them out; a release printing its own version is no difference."""
    shown = {c.index for c in example.cells if c.tracked}
    ours = {cell.cell: change_key(cell, result.env) for cell in result.cells if cell.cell in shown}
    found = set()
    for recording in recordings:
        cells = [c for c in recording.cells if c.cell in ours and c.cell not in recording.failed_cells]
        if any(change_key(cell, recording.env) != ours[cell.cell] for cell in cells):
            found.add(release(recording.env.get("torch", "?")))
    return found


def spans(releases: Iterable[str], text: dict[str, str]) -> str:
    """``releases`` in words: runs of three or more consecutive minor releases as a range of minors
    joined by an en dash (``2.4\u20132.8``), the others one by one; ``2.4\u20132.15, 2.17.0 and 2.19.1``."""
    ordered = sorted(set(releases), key=version_key)
    runs: list[list[str]] = []
    for version in ordered:
        major, minor = (*version_key(version), 0, 0)[:2]
        before = (*version_key(runs[-1][-1]), 0, 0)[:2] if runs else None
        if before and before[0] == major and before[1] + 1 == minor:
            runs[-1].append(version)
        else:
            runs.append([version])
    words = []
    for run in runs:
        if len(run) >= 3:
            first, last = (".".join(map(str, (*version_key(v), 0, 0)[:2])) for v in (run[0], run[-1]))
            words.append(f"{first}\u2013{last}")
        else:
            words += run
    return words[0] if len(words) == 1 else f"{text['sep'].join(words[:-1])} {text['and']} {words[-1]}"


def render_checks(
    built: dict[str, str], recorded: dict[str, list[Recording]], folder: str, *, lang: str, differ: Iterable[str] = (),
    elsewhere: dict[str, list[Recording]] | None = None, declared: dict[str, list[Verdict]] | None = None,
) -> str:  # fmt: skip
    """The paragraph of checked releases for a page whose examples' fresh recordings are ``recorded`` (example
    path: its recordings); ``built``: the build's env; ``folder``: the examples folder, as messages name it;
    ``differ``: the releases that print other outputs than the build (:func:`differing`); ``elsewhere``: the
    recordings on other devices (a GPU) in which every cell of the example ran as it is now; ``declared``: example
    path: what the environments say of each of its checks (recordings/declared.py), those that declare a range said
    in its words."""
    if not recorded:
        return ""
    text = texts(lang)
    here = release(built.get("torch", "?"))
    checked: list[set[str]] = []  # per example: the releases its checks ran on
    lines = []
    for path, recordings in sorted(recorded.items()):
        ok = {here} | {release(r.env.get("torch", "?")) for r in recordings if not r.failed}
        checked.append(ok | {release(r.env.get("torch", "?")) for r in recordings if r.failed})
        ranged = {v.cell.index: v for v in (declared or {}).get(path, []) if v.cell.holds is not None}
        # a failure of a check that declares its range: that declaration says it, below
        failures = {r.failed for r in recordings if r.failed and r.failed.cell not in ranged}
        for failed in sorted(failures, key=lambda f: (f.cell, f.line or 0, f.message)):  # not by hash: reproducible
            # named with their builds (2.14.1+cu130): a build of torch may be what breaks a claim
            bad = sorted({r.env.get("torch", "?") for r in recordings if r.failed == failed}, key=version_key)
            values = {"example": f"{folder}/{path}", "line": failed.line or "?", "message": failed.message}
            # where this check held: no check failed there, or one after it did (it ran, and passed)
            held = {here} | {release(r.env.get("torch", "?")) for r in recordings
                             if not r.failed or r.failed.cell > failed.cell}  # fmt: skip
            newest_bad, oldest_ok = max(bad, key=version_key), min(held, key=version_key)
            ran = {release(r.env.get("torch", "?")) for r in recordings} | {here}
            after = {v for v in ran if version_key(v) >= version_key(oldest_ok)}
            if version_key(newest_bad) < version_key(oldest_ok) and after <= held:
                lines.append(text["since"].format(release=oldest_ok, releases=spans(bad, text), **values))
            else:
                lines.append(text["fails"].format(releases=spans(bad, text), **values))
        for verdict in ranged.values():
            cell = verdict.cell
            assert cell.holds is not None
            values = {"example": f"{folder}/{path}", "line": cell.header or cell.lineno,
                      "range": cell.holds.words(text)}  # fmt: skip
            failing = [r for r in verdict.failed if not cell.holds.covers(r)]  # inside: a build error of their own
            lines.append(text["declared"].format(releases=spans(failing, text), **values) if failing
                         else text["declared.none"].format(**values))  # fmt: skip
    everywhere = set.intersection(*checked) if checked else {here}
    joined = spans(everywhere, text)
    count = text["checked.count"].format(n=len(everywhere)) if "\u2013" in joined else ""  # a range hides how many
    sentences = [text["checked"].format(releases=joined, count=count)]
    for device in sorted({r.device for rs in (elsewhere or {}).values() for r in rs}):
        on = [{release(r.env.get("torch", "?")) for r in (elsewhere or {}).get(path, []) if r.device == device}
              for path in recorded]  # fmt: skip
        if on and (common := set.intersection(*on)):
            name = "CUDA" if device == "cuda" else device.upper()
            sentences.append(text["checked.gpu"].format(device=name, releases=spans(common, text)))
    if differ := set(differ) & everywhere:
        sentences.append(text["differ.on"].format(releases=spans(differ, text)))
    body = text["gap"].join(inline(line) for line in [*sentences, *lines])
    return f'\n\n<p class="mx-checked" data-search-exclude><small>{body}</small></p>\n'
