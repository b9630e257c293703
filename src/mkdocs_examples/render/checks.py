"""The lines at the end of a page that say on which torch releases its examples were checked, and what differs.

Every cell of an example runs in each environment, its hidden checks (``remove-cell``
assertions) too. A page names the releases where every example it embeds ran as it is now:
the build's own, and each published recording of the same source. Consecutive minor releases
that were all checked are named as a range, with an en dash ("torch 2.4\u20132.15 (12 releases)");
a release between two checked ones that was not checked itself breaks the range, so a range never
claims a release nobody ran. Recordings on a GPU in which every cell ran as it is now add a
sentence of their own ("Checked on CUDA with torch 2.11.0 too."). Where a release prints other
outputs than the build (:func:`differing`: a cell the page shows, noise aside, measurements left
out), the line says where, and that the notes under the outputs show it.

The line is for readers: it says what differs for someone on another torch, in the page's language,
and links to the cell it is about. A check whose cell declares the releases where it holds
(``holds=">=2.8"``, source/holds.py) is said in those words, with its claim in the words of its
``claim=`` ("`torch.load` refuses ...: true on torch 2.6 and later, not on torch 2.4.1 and 2.5.1"). A
check that failed in a recorded environment (``record --keep-failed``) without a declaration is a
problem of the strict build (recordings/declared.py); a build that goes on says "a check of this page
fails on torch X", and "it holds from torch Y on" where it fails only on releases older than every
release where it holds. (It fails the build, as always, on the build's own release.) What a
contributor needs to find it (the file, the line, the message the check printed, the builds of torch
it ran on: 2.14.1+cu130) is folded below the line, in a box "For contributors".
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass

from mkdocs_examples.recordings.declared import Verdict
from mkdocs_examples.recordings.store import Recording, release
from mkdocs_examples.render.attribution import change_key, version_key
from mkdocs_examples.render.provenance import inline
from mkdocs_examples.results import Result
from mkdocs_examples.source import comments
from mkdocs_examples.source.cells import Example, claimed
from mkdocs_examples.texts import text as texts


def differing(example: Example, result: Result, recordings: list[Recording]) -> set[str]:
    """The releases of ``recordings`` in which a cell of ``example`` that pages show printed other than the
    build's ``result``, the machine's noise aside; a measurement (``varies``) and a cell whose check failed
    there are left out, as pages leave them out, and so is a cell the build skipped (it printed nothing to differ
    from); a release printing its own version is no difference."""
    shown = {c.index for c in example.cells if c.tracked}
    ours = {cell.cell: change_key(cell, result.env) for cell in result.cells if cell.cell in shown and not cell.skipped}
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
    return listed(words, text)


def listed(words: list[str], text: dict[str, str]) -> str:
    """``words`` as a list in a sentence of the language of ``text``: ``a, b and c``; ``a、b 和 c``."""
    return words[0] if len(words) == 1 else f"{text['sep'].join(words[:-1])} {text['and']} {words[-1]}"


def code_spans(words: str) -> str:
    """``words`` (a claim, plain text with code between backticks) as HTML: the code spans as ``<code>``, the
    rest escaped, so that neither HTML nor Markdown reads anything into it."""
    parts = re.split(r"`([^`]+)`", words)
    return "".join(f"<code>{inline(part)}</code>" if odd else inline(part) for odd, part in
                   ((i % 2 == 1, part) for i, part in enumerate(parts)))  # fmt: skip


@dataclass(frozen=True)
class Found:
    """One check the line speaks of: for readers, what differs and the cell it links to; for contributors, where
    it is and what it printed on which builds of torch."""

    said: str  # the sentence for readers, as HTML
    detail: str  # the line of the box "For contributors", as HTML
    order: tuple[str, int, int]  # example, line, cell: the order of the lines, reproducible (never by hash)


def render_checks(
    built: dict[str, str], recorded: dict[str, list[Recording]], folder: str, *, lang: str, differ: Iterable[str] = (),
    elsewhere: dict[str, list[Recording]] | None = None, declared: dict[str, list[Verdict]] | None = None,
    examples: dict[str, Example] | None = None, places: dict[str, str] | None = None,
    lacking: dict[str, str] | None = None,
) -> str:  # fmt: skip
    """The paragraph of checked releases for a page whose examples' fresh recordings are ``recorded`` (example
    path: its recordings), and the folded box of details for contributors where a check fails somewhere.

    ``built``: the build's env; ``folder``: the examples folder, as contributors find it; ``differ``: the releases
    that print other outputs than the build (:func:`differing`); ``elsewhere``: the recordings on other devices (a
    GPU) in which every cell of the example ran as it is now; ``declared``: example path: what the environments say
    of each of its checks (recordings/declared.py), those that declare a range said in its words; ``examples``: the
    examples by path (their ``claim=`` in the page's language); ``places``: the anchor on this page of each cell a
    reader may be sent to (``path#index``: its id), a check of a cell the page does not show is said unlinked;
    ``lacking``: example path: the module its ``requires-<module>`` cells need, which the build could not import
    (they ran only in the recordings that say so, which a sentence names)."""
    if not recorded:
        return ""
    text = texts(lang)
    here = release(built.get("torch", "?"))
    checked: list[set[str]] = []  # per example: the releases its checks ran on
    found: list[Found] = []
    for path, recordings in sorted(recorded.items()):
        ok = {here} | {release(r.env.get("torch", "?")) for r in recordings if not r.failed}
        checked.append(ok | {release(r.env.get("torch", "?")) for r in recordings if r.failed})
        example = (examples or {}).get(path)
        ranged = {v.cell.index: v for v in (declared or {}).get(path, []) if v.cell.holds is not None}
        # a failure of a check that declares its range: that declaration says it, below
        failures = {r.failed for r in recordings if r.failed and r.failed.cell not in ranged}
        for failed in failures:
            bad = {r.env.get("torch", "?") for r in recordings if r.failed == failed}  # with their builds (+cu130)
            # where this check held: no check failed there, or one after it did (it ran, and passed)
            held = {here} | {release(r.env.get("torch", "?")) for r in recordings
                             if not r.failed or r.failed.cell > failed.cell}  # fmt: skip
            newest_bad, oldest_ok = max(bad, key=version_key), min(held, key=version_key)
            ran = {release(r.env.get("torch", "?")) for r in recordings} | {here}
            after = {v for v in ran if version_key(v) >= version_key(oldest_ok)}
            since = version_key(newest_bad) < version_key(oldest_ok) and after <= held
            link = _link(inline(text["check.link"]), path, failed.cell, example, places)
            said = text["check.since" if since else "check.fails"].format(
                releases=spans({release(b) for b in bad}, text), release=oldest_ok, check=link)
            detail = text["detail.fails"].format(
                where=_where(folder, path, failed.line, text), failures=_failures({b: failed.message for b in bad},
                                                                                  text))  # fmt: skip
            found.append(Found(said, detail, (path, failed.line or 0, failed.cell)))
        for verdict in ranged.values():
            found.append(_declared(verdict, path, recordings, built, folder, text, lang, example, places))
    everywhere = set.intersection(*checked) if checked else {here}
    joined = spans(everywhere, text)
    count = text["checked.count"].format(n=len(everywhere)) if "\u2013" in joined else ""  # a range hides how many
    sentences = [inline(text["checked"].format(releases=joined, count=count))]
    for device in sorted({r.device for rs in (elsewhere or {}).values() for r in rs}):
        on = [{release(r.env.get("torch", "?")) for r in (elsewhere or {}).get(path, []) if r.device == device}
              for path in recorded]  # fmt: skip
        if on and (common := set.intersection(*on)):
            name = "CUDA" if device == "cuda" else device.upper()
            sentences.append(inline(text["checked.gpu"].format(device=name, releases=spans(common, text))))
    for module in sorted(set((lacking or {}).values())):
        runs = [{release(r.env.get("torch", "?")) for r in recorded.get(path, [])}
                for path, needed in (lacking or {}).items() if needed == module]  # fmt: skip
        common = set.intersection(*runs) if runs else set()
        key = "checked.module" if common else "checked.module.none"
        sentences.append(inline(text[key].format(module=module, releases=spans(common, text) if common else "",
                                                 here=here)))  # fmt: skip
    if differ := set(differ) & everywhere:
        sentences.append(inline(text["differ.on"].format(releases=spans(differ, text))))
    found.sort(key=lambda f: f.order)
    body = text["gap"].join([*sentences, *(f.said for f in found)])
    line = f'\n\n<p class="mx-checked" data-search-exclude><small>{body}</small></p>\n'
    if details := [f.detail for f in found if f.detail]:
        items = "".join(f"<li>{d}</li>" for d in details)
        line += (f'\n<details class="mx-checked-more" data-search-exclude><summary>{inline(text["detail.title"])}'
                 f"</summary><ul>{items}</ul></details>\n")  # fmt: skip
    return line


def _declared(
    verdict: Verdict, path: str, recordings: list[Recording], built: dict[str, str], folder: str,
    text: dict[str, str], lang: str, example: Example | None, places: dict[str, str] | None,
) -> Found:  # fmt: skip
    """The sentence and the detail of a check that declares where it holds: its claim, in the words of its
    ``claim=`` where it has one, the range, and the releases where it fails."""
    cell = verdict.cell
    assert cell.holds is not None
    failing = [r for r in verdict.failed if not cell.holds.covers(r)]  # inside: a build error of their own
    said = comments.words(example, cell.claim, lang) if example is not None and cell.claim else None
    claim = _link(code_spans(said) if said else inline(text["claim.unsaid"]), path, cell.index, example, places)
    values = {"claim": claim, "range": inline(cell.holds.words(text))}
    minors = {".".join(r.split(".")[:2]) for r in failing}
    but = {".".join(map(str, b)) for b in cell.holds.but}
    if failing and not minors <= but:  # a range that leaves releases out names them already
        sentence = text["claim.not"].format(releases=inline(spans(failing, text)), **values)
    else:
        sentence = text["claim"].format(**values)
    builds = {}  # the build of each release where it failed, and what it said there
    for recording in recordings:
        for failed in (*([recording.failed] if recording.failed else []), *recording.declared):
            if failed.cell == cell.index and not cell.holds.covers(recording.env.get("torch", "?")):
                builds[recording.env.get("torch", "?")] = failed.message
    if release(built.get("torch", "?")) in failing:
        builds[built.get("torch", "?")] = verdict.fails[release(built.get("torch", "?"))]
    values = {"where": _where(folder, path, cell.header or cell.lineno, text),
              "holds": f'<code>holds="{inline(str(cell.holds))}"</code>'}  # fmt: skip
    detail = (text["detail.declared"].format(failures=_failures(builds, text), **values) if builds
              else text["detail.declared.none"].format(**values))  # fmt: skip
    return Found(sentence, detail, (path, cell.header or cell.lineno, cell.index))


def _link(words: str, path: str, cell: int, example: Example | None, places: dict[str, str] | None) -> str:
    """``words`` (HTML) as a link to the place on this page of the cell the claim of ``cell``'s check is about
    (source/cells.py ``claimed``); as they are where there is none, or the page does not show it."""
    if example is None or places is None or cell >= len(example.cells):
        return words
    about = claimed(example, example.cells[cell])
    place = places.get(f"{path}#{about.index}") if about is not None else None
    return f'<a href="#{html.escape(place)}">{words}</a>' if place else words


def _where(folder: str, path: str, line: int | None, text: dict[str, str]) -> str:
    return text["detail.where"].format(example=f"<code>{inline(f'{folder}/{path}')}</code>", line=line or "?")


def _failures(builds: dict[str, str], text: dict[str, str]) -> str:
    """Each message a check printed and the builds of torch it printed it on (``2.4.1+cu121``), as HTML."""
    by_message: dict[str, list[str]] = {}
    for build in sorted(builds, key=version_key):
        by_message.setdefault(builds[build], []).append(build)
    return text["sep"].join(
        text["detail.failure"].format(builds=inline(listed(names, text)), message=f"<code>{inline(message)}</code>")
        for message, names in by_message.items()
    )

