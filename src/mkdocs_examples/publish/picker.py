"""The torch picker's data: which releases a reader can pick, which environment each pick shows, and every
example's outputs in each environment, as the JSON files the picker fetches.

The picker (``assets/mkdocs_examples_picker.js``) adds a ``<select>`` to the page's header. It offers one choice
per environment (:func:`choices`), newest release first, each by the environment's one name. For a cell of each
device, :func:`alongside` names the environment whose output it shows: the
chosen one on its own device, that release's run on another, and none where that device was not recorded with
that release. Then the cell keeps its output and its label says so: a reader is never shown another release's
output as theirs. A picked output takes the cell's place, and the build's is folded under its own label.

Two kinds of file, written at the end of a build under ``<site>/outputs/`` (:data:`FOLDER`),
the first fetched on each page with outputs, the others only once a reader picks a release other
than the build's:

- ``environments.json`` (:func:`site_data`): the releases, the environment each shows per
  device, each environment's short label and what printed its outputs in words (in each language, the
  label's title), and the picker's texts in each
  language the engine speaks;
- ``examples/<path>.json`` (:func:`example_data`), one per example that built: for each cell a
  page shows, the index of its output in each environment (the build's, each fresh recording's)
  into a list of outputs, each once, cut to ``max_output`` as pages cut them; and, per environment,
  the cells whose check fails there, so that the picker says so above what that release printed.

Every text in them comes from an example's run or a recording, so from whoever wrote it: the
picker writes it with ``textContent`` only, and takes a figure only as base64 PNG data.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs_examples import html_parse
from mkdocs_examples.recordings.store import Recording, python_minor, release
from mkdocs_examples.render import provenance
from mkdocs_examples.render.checks import version_key
from mkdocs_examples.render.page import capped
from mkdocs_examples.render.provenance import BUILD, described
from mkdocs_examples.results import CellResult, Result
from mkdocs_examples.source import comments
from mkdocs_examples.source.cells import Example, claimed
from mkdocs_examples.texts import TEXT

SCHEMA = 1
FOLDER = "outputs"  # under the site's root
SITE = "environments.json"  # the site's file; each example's is examples/<path>.json
# On a phone the picker sits above the page's title. A page with outputs it can change holds this empty
# block there from the start, of the picker's height, which the picker takes the place of: the title does
# not move when the picker comes, whenever the browser first paints the page (its labels come later)
ROOM = '<div class="mx-picker-room"></div>'

TEXTS = ("picker.label", "picker.built", "picker.unrecorded", "picker.missing", "picker.unverified",
         "picker.differs", "picker.differs.holds", "picker.raised", "picker.raised.holds", "picker.claim",
         "picker.claim.holds", "picker.claim.raised", "picker.claim.raised.holds", "picker.raised.after",
         "picker.raised.end", "picker.stopped", "picker.source", "prints", "output", "exception", "figure")  # fmt: skip


@dataclass(frozen=True)
class Environment:
    """An environment the site has outputs of: ``name`` is :data:`BUILD`, or the folder of its recordings."""

    name: str
    env: dict[str, str]
    date: str | None = None  # None: the folder's recordings may come from several days, and a label names none
    unverified: bool = False  # some of its recordings no trusted key signs (recordings/attest.py): labels say so

    @property
    def device(self) -> str:
        return self.env.get("device", "?")

    @property
    def release(self) -> str:
        return release(self.env.get("torch", "?"))

    @property
    def python(self) -> str:
        return python_minor(self.env.get("python", "?"))


def releases(environments: list[Environment]) -> list[str]:
    """The releases a reader can pick: each environment's torch release, once, newest first."""
    return sorted({e.release for e in environments if "torch" in e.env}, key=version_key, reverse=True)


def choices(environments: list[Environment]) -> list[dict[str, Any]]:
    """What the picker offers: one choice per environment with torch, newest release first; of one release, the
    build's own, then the CPU's before other devices', by Python. A choice is named by its environment (``key``)
    and reads as the environment's one name (render/provenance.py ``name``) after the picker's "Outputs of
    torch", in each language: ``2.11.0``, ``2.11.0 · Python 3.12``, ``2.11.0 · H200 · Python 3.12``, ``2.4.1 · CUDA
    build, no GPU``.

    ``shows``: for a cell of each device, the environment whose output it shows (:func:`alongside`); ``all``: for
    a choice of a GPU, that GPU's run, whose output every cell shows but a device tab's ("CPU | CUDA"), which
    keeps its own device's: the reader of a GPU's release reads what that GPU's run printed, cell by cell."""
    torch = [e for e in environments if "torch" in e.env]
    site = _site(environments)
    made = []
    for pick in releases(torch):
        same = sorted((e for e in torch if e.release == pick),
                      key=lambda e: (e.name != BUILD, e.device != "cpu", e.device, version_key(e.python), e.name))
        for e in same:
            made.append({"key": e.name, "release": pick, "device": e.device,
                         "name": {lang: provenance.name(e.env, site, lang=lang).removeprefix("torch ")
                                  for lang in TEXT},
                         "shows": {d: alongside(e, d, torch) for d in sorted({x.device for x in torch})},
                         "all": e.name if e.device != "cpu" else None})  # fmt: skip
    return made


def _site(environments: list[Environment]) -> dict[str, str]:
    """The build's environment, against which each environment is named."""
    return next((e.env for e in environments if e.name == BUILD), {})


def alongside(chosen: Environment, device: str, environments: list[Environment]) -> str | None:
    """The environment whose output a cell of ``device`` shows for a reader who chose ``chosen``: that very one
    on its device; on another, the run of that device with the same release, of the same Python if there is one
    (a GPU machine records its CPU twin), the build's first; None where that device has no run of that release."""
    if device == chosen.device:
        return chosen.name
    same = [e for e in environments if e.device == device and e.release == chosen.release]
    return min(same, key=lambda e: (e.python != chosen.python, e.name != BUILD, e.name)).name if same else None


def site_data(environments: list[Environment], limit: int) -> dict[str, Any]:
    """The content of ``environments.json``."""
    texts = {lang: {key: words[key] for key in TEXTS} for lang, words in TEXT.items()}
    for lang, words in TEXT.items():  # "… {n} more characters cut": the picker puts the number in
        texts[lang]["cut"] = words["cut"].replace("{n:,}", "{n}").replace("{limit:,}", f"{limit:,}")
    return {
        "schema": SCHEMA,
        "build": next((e.release for e in environments if e.name == BUILD and "torch" in e.env), None),
        "choices": choices(environments),
        "environments": {
            e.name: {"device": e.device, "release": e.release,
                     "label": {lang: provenance.name(e.env, _site(environments), lang=lang) for lang in TEXT},
                     "printed": {lang: _sentence(described(e.env, lang)) for lang in TEXT},
                     **({"unverified": True} if e.unverified else {})}
            for e in environments
        },
        "texts": texts,
    }


def _sentence(words: str) -> str:
    """``words`` as a sentence of their own: ``Printed on a CPU with PyTorch 2.13.0+cpu (Python 3.11.7)``."""
    return words[:1].upper() + words[1:]


def example_data(example: Example, result: Result, recorded: dict[str, Recording], limit: int) -> dict[str, Any]:
    """The content of an example's file: its cells' outputs in the build (``result``) and in each
    environment of ``recorded`` (its name: what holds of its recording: the cells that ran the code as it is now),
    a cell whose check fails there too: the reader who picked that release sees what it printed, and
    ``claims`` says which check fails, with the releases it holds on where its cell declares them (in each
    language), so that the picker says it in words above that output."""
    outputs: list[dict[str, Any]] = []
    index: dict[str, int] = {}  # an output, as JSON: its place in `outputs`
    cells: dict[str, dict[str, int]] = {}
    runs = {BUILD: result.cells, **{name: r.cells for name, r in recorded.items()}}  # cells that hold, only
    for item in example.cells:
        if not item.compared:
            continue  # not shown; or a timing, which differs on every run: pages show the build's alone
        for name, run in runs.items():
            found = next((c for c in run if c.cell == item.index), None)
            if found is None or found.skipped:
                continue  # not run there
            output = _output(capped(found, limit))
            key = json.dumps(output, sort_keys=True)
            if key not in index:
                index[key] = len(outputs)
                outputs.append(output)
            cells.setdefault(str(item.index), {})[name] = index[key]
    # where a check failed and the run stopped: the cells after it have no output there, and their labels say why
    stopped = {name: {"cell": f.cell, "line": f.line, "message": f.message}
              for name, r in recorded.items() if (f := r.failed)}  # fmt: skip
    claims = {name: said for name, r in recorded.items() if (said := _claims(example, r))}
    return {"schema": SCHEMA, "example": example.path, "outputs": outputs, "cells": cells, "failed": stopped,
            "claims": claims}  # fmt: skip


def _claims(example: Example, recording: Recording) -> dict[str, dict[str, Any]]:
    """The shown cells of ``example`` whose check fails in ``recording``: the cell's own (a ``raises=``, an
    ``assert`` in it) or a hidden check's about it (source/cells.py ``claimed``), each with that check's line, and
    in each language its ``claim=`` and the releases its cell declares it holds on (``holds=``), where it has them;
    where the cell itself raised there, the error it raised."""
    found: dict[str, dict[str, Any]] = {}
    for failed in sorted([*([recording.failed] if recording.failed else []), *recording.declared],
                         key=lambda f: f.cell):  # fmt: skip
        if not 0 <= failed.cell < len(example.cells):
            continue
        check = example.cells[failed.cell]
        shown = claimed(example, check)
        if shown is None or not shown.compared:
            continue  # a check of no output the page shows: the checks line says it
        # the cell itself raised: its recorded output stops there, and the error is said in words
        ran = recording.cell(failed.cell)
        raised = failed.kind == "exception" and check is shown and not (ran and ran.traceback)
        found.setdefault(str(shown.index), {
            "line": failed.line,
            "holds": {lang: check.holds.words(words) for lang, words in TEXT.items()} if check.holds else None,
            "claim": {lang: comments.words(example, check.claim, lang) for lang in TEXT} if check.claim else None,
            "raised": failed.message if raised else None,
        })
    return found


def _output(cell: CellResult) -> dict[str, Any]:
    return {
        "output": cell.output.rstrip("\n"),
        "truncated": cell.truncated,
        "traceback": cell.traceback.rstrip("\n") if cell.traceback else None,
        "images": [image for image in cell.images if _BASE64.fullmatch(image)],
    }


_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")


def environments(built: dict[str, str], found: dict[str, dict[str, Recording]],
                 unverified: frozenset[str] = frozenset()) -> list[Environment]:  # fmt: skip
    """The build's environment (``built``, its env) and each folder of recordings in ``found`` (its name:
    example path: recording) that holds any; ``unverified``: the folders holding recordings no trusted key signs."""
    named = [Environment(BUILD, built)] if built else []
    for name, recordings in found.items():
        if recordings:  # the newest recording's env (a folder's manifest holds for all), without its date
            newest = max(recordings.values(), key=lambda r: r.recorded)
            named.append(Environment(name, newest.env, unverified=name in unverified))
    return named


def write(
    site_dir: Path, built: dict[str, str], found: dict[str, dict[str, Recording]],
    results: list[tuple[Example, Result]], limit: int, unverified: frozenset[str] = frozenset(),
    kept: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] | None = None,
) -> None:  # fmt: skip
    """The picker's files under ``site_dir``: the site's, and one per example of ``results`` (each with the
    build's result); ``built``: the build's environment; ``found``: the published recordings, by folder and
    example; ``kept``: each example's data as the last build made it, by what it was made of (`mkdocs serve`),
    updated."""
    folder = site_dir / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    _dump(folder / SITE, site_data(environments(built, found, unverified), limit))
    for example, result in results:
        recorded = {name: r for name, recordings in found.items() if (r := recordings.get(example.path))}
        inputs = (example, result, recorded, limit)
        known = kept.get(example.path) if kept is not None else None
        data = known[1] if known is not None and known[0] == inputs else example_data(example, result, recorded, limit)
        if kept is not None:
            kept[example.path] = (inputs, data)
        _dump(folder / "examples" / f"{example.path.removesuffix('.py')}.json", data)


def _dump(file: Path, data: dict[str, Any]) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def with_room(page: str) -> str:
    """A page's HTML with the picker's :data:`ROOM` before the title of its article, if it shows an output the
    picker can change (in the page as written, after search read its content: not a part of it)."""
    if not any("data-mx-env" in label.attrs for label in html_parse.find_all(page, "small")):
        return page
    articles = [a for a in html_parse.find_all(page, "article", start_only=True) if "md-content__inner" in a.classes]
    titles = [h for h in html_parse.find_all(page, "h1", start_only=True) if articles and h.start > articles[0].start]
    return page[: titles[0].start] + ROOM + page[titles[0].start :] if titles else page
