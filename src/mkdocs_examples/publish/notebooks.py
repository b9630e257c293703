"""What a reader takes away: each example as a script and as a notebook.

- :func:`runnable_script`: on the site a cell tagged ``raises-exception`` shows its
  traceback and the example goes on; ``python example.py`` would stop there. The runnable
  form wraps such a cell in ``try``/``except`` that prints the traceback, and a
  ``requires-cuda`` cell (one meant to raise too) in a check for a GPU, keeps the notes of
  the reader's language (source/cells.notes_for), and leaves every other line as written,
  cell markers included: still a percent-format script that Jupytext, VS Code or PyCharm open.
- :func:`declared`: a downloaded script declares UTF-8 on its first line, the encoding the build
  read the example in, so that no line of the example or of a translation can make Python decode
  it otherwise.
- :func:`notebook`: the example as a Jupyter notebook (nbformat 4) holding the outputs the
  site shows: printed text as stream outputs, the traceback of a raising cell as an error
  output, figures as PNG. Hidden check cells are kept, tagged ``remove-cell`` as on the
  site (Jupyter Book hides them too): they are the assertions that keep the page true, and
  a reader can run them. Its ``requires-cuda`` cells check for a GPU: without one, each prints
  what it printed on the GPU it was recorded on, naming that machine, in the reader's language
  (:func:`gpu_fallback`), and "Run all" goes on; a raising cell stays as the page shows it (its
  tag, ``raises-exception``, lets Jupyter go on). Without a result, the notebook has no outputs
  and its raising and CUDA cells are in their runnable form, so "Run all" goes to the end (the
  form committed for Colab). Its notes too are those of the reader's language.

Both are written once per language of the site (:func:`write_downloads`), each page linking
its language's.
"""

from __future__ import annotations

import html
import io
import json
import re
import textwrap
import tokenize
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mkdocs_examples import texts
from mkdocs_examples.cjk import unwrap
from mkdocs_examples.recordings.store import Recording
from mkdocs_examples.render.provenance import described, in_words
from mkdocs_examples.results import CellResult, Result
from mkdocs_examples.source import comments
from mkdocs_examples.source.cells import Cell, Example, find_examples, is_code, notes_for, read_example, split_chunks
from mkdocs_examples.source.keys import support_digest


def notebook(
    example: Example, result: Result | None = None, recorded: Recording | None = None, *, lang: str = texts.DEFAULT,
    seed: int = 0, threads: int = 1,
) -> dict[str, Any]:  # fmt: skip
    """``example`` as an nbformat-4 notebook, with the outputs of ``result`` if given.

    ``recorded``: a recording of this very source on a GPU; the cells ``result`` skipped
    (``requires-cuda``) get its outputs, each followed by a note naming the machine. The notes
    the engine adds are in language ``lang``, and so are the example's own notes where it has
    notes in that language (source/cells.notes_for). A first code cell starts the kernel as the
    build started the example (:func:`as_built`: ``seed``, ``threads``, the plugin's options).
    """
    words = texts.text(lang)
    example = comments.translated(example, lang)  # its comments in the reader's language
    by_line = {cell.lineno: cell for cell in example.cells}
    outputs = {c.cell: c for c in result.cells} if result else {}
    from_gpu = set()
    if result and recorded:  # what holds of a recording: only cells that ran the code as it is now
        for index, mine in list(outputs.items()):
            if mine.skipped and (theirs := recorded.cell(index)) and not theirs.skipped:
                outputs[index] = theirs
                from_gpu.add(index)
    if result is None:
        runnable = _runnable_cells(example, lang=lang)
    else:  # CUDA cells guarded; without a GPU each says what it printed on the one it was recorded on
        env = recorded.env if recorded else None
        runnable = _guarded_cells(example, {
            c.index: gpu_fallback(outputs[c.index] if c.index in from_gpu else None, env, lang=lang)
            for c in example.cells if c.has("requires-cuda")
        }, lang=lang)  # fmt: skip
    chosen = {note.lineno: note for note in notes_for(example.notes, lang)}
    cells: list[dict[str, Any]] = []
    count = 0
    notes = 0
    for marker, header, lines in split_chunks(example.source):
        if not is_code(header):
            if marker in chosen:
                notes += 1
                cells.append(_markdown(chosen[marker].text, f"note-{notes}"))
            continue
        if not "\n".join(lines).strip():
            continue
        cell = next((c for line, c in by_line.items() if marker < line <= marker + len(lines) + 1), None)
        if cell is None:
            continue
        ran = cell.index in outputs and outputs[cell.index].skipped is None
        count += ran
        cells.append(
            _code(cell, runnable.get(cell.index, cell.source), outputs.get(cell.index) if ran else None, count)
        )
        if cell.index in from_gpu and recorded:
            notes += 1
            note = words["notebook.recorded"].format(what=described(recorded.env, lang), date=recorded.date)
            cells.append(_markdown(f"*{note}*", f"note-{notes}"))
        elif cell.has("requires-cuda") and result is not None and not ran:
            notes += 1
            cells.append(_markdown(f"*{words['notebook.cuda']}*", f"note-{notes}"))
        elif cell.module and result is not None and not ran:
            notes += 1
            cells.append(_markdown(f"*{words['notebook.module'].format(module=cell.module)}*", f"note-{notes}"))
    first = next((i for i, cell in enumerate(cells) if cell["cell_type"] == "code"), len(cells))
    start = as_built(example, seed, threads, lang=lang)
    cells.insert(first, {"cell_type": "code", "execution_count": None, "id": "as-built", "metadata": {}, "outputs": [],
                         "source": start})  # fmt: skip
    if result is not None and "torch" in result.env:  # which environment the outputs come from: before the first
        built = words["notebook.built"].format(**in_words(result.env, lang))
        cells.insert(first, _markdown(f"*{built}*", "environment"))
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            **({"mkdocs_examples": {"source": example.display, **result.env}} if result else {}),
            **(
                {"mkdocs_examples_recorded": {**recorded.env, "recorded": recorded.recorded}}
                if recorded and from_gpu
                else {}
            ),
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def as_built(example: Example, seed: int, threads: int, *, lang: str = texts.DEFAULT) -> str:
    """A notebook's first code cell: ``random``, ``torch`` (and NumPy where the example uses it) seeded with
    ``seed`` and torch's intra-op threads set to ``threads``, as the engine starts each example: a hidden check
    of random data holds in a reader's kernel as in the build, and the outputs match the page's."""
    lines = [f"# {line}" for line in texts.text(lang)["notebook.as-built"].split("\n")]
    lines += ["import random", "", "import torch", "", f"random.seed({seed})", f"torch.manual_seed({seed})",
              f"torch.set_num_threads({threads})"]  # fmt: skip
    if "numpy" in example.source:  # the engine seeds NumPy once something imports it; torch runs without it
        lines += ["", "try:", "    import numpy", "except ImportError:", "    pass", "else:",
                  f"    numpy.random.seed({seed})"]  # fmt: skip
    return "\n".join(lines)


def write_downloads(
    folder: Path, built: Iterable[tuple[Example, Result, Recording | None]], *, lang: str = texts.DEFAULT,
    seed: int = 0, threads: int = 1, kept: dict[tuple[str, str], tuple[tuple[Any, ...], tuple[str, str]]] | None = None,
) -> None:  # fmt: skip
    """``<path>.py`` (runnable) and ``<path>.ipynb`` (with the outputs) of each example, under ``folder``.

    Both for readers of ``lang``: the example's notes in that language where it has them, the
    notes the engine adds to the notebook too, and its comments and the English of its strings
    (source/comments.for_download; its outputs follow its cells by their order, not their keys).
    ``kept``: each example's two files in each language as the last build made them, by what they
    were made of (`mkdocs serve`), updated.
    """
    for example, result, recorded in built:
        target = folder / example.path.removesuffix(".py")
        inputs = (example, result, recorded, seed, threads)
        known = kept.get((example.path, lang)) if kept is not None else None
        if known is not None and known[0] == inputs:
            script, nb = known[1]
        else:
            readers = comments.for_download(example, lang)  # the English of its strings too: files a reader runs
            script = declared(runnable_script(readers, lang=lang))
            nb = dumps(notebook(readers, result, recorded, lang=lang, seed=seed, threads=threads))
        if kept is not None:
            kept[example.path, lang] = (inputs, (script, nb))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.with_suffix(".py").write_text(script, encoding="utf-8")
        target.with_suffix(".ipynb").write_text(nb, encoding="utf-8")


CODING = "# -*- coding: utf-8 -*-"  # PEP 263's form, which Python, Emacs and Vim read alike


def declared(script: str) -> str:
    """``script`` with :data:`CODING` on its first line, or its second after a ``#!`` line (Python reads a
    declaration only there): the download is written in UTF-8, as the build read the example, and a line further
    down that declares another encoding (``# coding: utf_7``) is then only a comment to Python."""
    if not script.startswith("#!"):
        return f"{CODING}\n{script}"
    shebang, _, rest = script.partition("\n")  # a line as Python finds a declaration: up to "\n"
    return f"{shebang}\n{CODING}\n{rest}"


def foreign_notes(example: Example, languages: Iterable[str]) -> list[str]:
    """A message for each note of ``example`` in none of the site's ``languages``: no reader gets it."""
    known = list(languages)
    return [
        f"{example.display}:{note.lineno}: a note in language {note.lang!r}, which this site has no pages in "
        f"({', '.join(known)}): name one of those in lang=, or remove the note"
        for note in example.notes
        if note.lang is not None and note.lang not in known
    ]


def colab_url(repository: str, example: Example, branch: str = "main", lang: str = texts.DEFAULT) -> str:
    """Colab's page for the example's notebook in language ``lang`` committed under ``notebooks/`` (see
    `make notebooks`, :func:`folder_of`)."""
    path = example.path.removesuffix(".py")
    owner_repo = repository.removeprefix("https://github.com/")
    folder = folder_of(COMMITTED, lang)
    return f"https://colab.research.google.com/github/{owner_repo}/blob/{branch}/{folder}/{path}.ipynb"


COMMITTED = "notebooks"  # the folder, beside the site's configuration, of the notebooks Colab opens from GitHub


def committed(examples: Iterable[Example], out: Path, *, seed: int, threads: int) -> dict[Path, str]:
    """What `make notebooks` writes under ``out`` for ``examples``: each notebook's path and text, in each
    language the engine speaks (its notes and comments; the English of its strings, which the reader runs).
    Examples whose comments are not all translated: :func:`comments.refuse` first."""
    return {
        Path(folder_of(str(out), lang)) / f"{example.path.removesuffix('.py')}.ipynb": dumps(
            notebook(comments.for_download(example, lang), lang=lang, seed=seed, threads=threads)
        )
        for lang in texts.LANGUAGES
        for example in examples
    }


def out_of_date(wanted: dict[Path, str], out: Path) -> tuple[list[Path], list[Path]]:
    """Of the notebooks under ``out``: those :func:`committed` would write otherwise (or that are missing), and
    those of no example any more."""
    stale = sorted(f for f, text in wanted.items() if not f.is_file() or f.read_text(encoding="utf-8") != text)
    extra = sorted(f for f in out.rglob("*.ipynb") if f not in wanted) if out.is_dir() else []
    return stale, extra


def write_committed(wanted: dict[Path, str], stale: list[Path], extra: list[Path]) -> None:
    """Bring the notebooks :func:`out_of_date` found up to date: write the stale, remove the extra."""
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(wanted[path], encoding="utf-8")
    for path in extra:
        path.unlink()


def keep_committed(
    root: Path, examples_dir: Path, folder: str, *, seed: int, threads: int, write: bool
) -> list[str]:
    """The build's care of the notebooks committed under ``root/notebooks/`` (none when there is no such
    folder). With ``write`` (a contributor's machine): each notebook an edited example made stale is written
    again, and one line says which, to commit with it; only the examples edited since their notebooks were
    written are read (:func:`_edited`), so that `mkdocs serve` pays for what changed. Without (CI): every
    notebook is compared, one line per stale one naming it and the command that writes it.
    :class:`ExampleError` or :class:`SiteError` for an example that cannot be read or translated."""
    out = root / COMMITTED
    if not out.is_dir():
        return []
    paths = find_examples(examples_dir, [])
    every = {Path(folder_of(str(out), lang)) / f"{path.removesuffix('.py')}.ipynb"
             for lang in texts.LANGUAGES for path in paths}  # fmt: skip
    read = [path for path in paths if not write or _edited(examples_dir / path, out, path)]
    support = support_digest(examples_dir) if read else ""  # once, not once per example (a helper is read once)
    examples = [read_example(examples_dir, path, folder, support) for path in read]
    comments.refuse(examples, texts.LANGUAGES)  # a Chinese notebook is never written with English comments
    wanted = committed(examples, out, seed=seed, threads=threads)
    stale, _ = out_of_date(wanted, out)
    extra = sorted(f for f in out.rglob("*.ipynb") if f not in every)
    names = [f.relative_to(root).as_posix() for f in stale + extra]
    if not write:
        return [f"{name} out of date: make notebooks" for name in names]
    write_committed(wanted, stale, extra)
    return [f"notebooks written again from their examples (commit them with the examples): {', '.join(names)}"] \
        if names else []  # fmt: skip


def _edited(source: Path, out: Path, path: str) -> bool:
    """Whether example ``source`` (or its translated comments) changed after one of its notebooks was written."""
    sources = [source, *source.parent.glob(f"{source.stem}.*.yml")]
    newest = max(f.stat().st_mtime for f in sources)
    books = [Path(folder_of(str(out), lang)) / f"{path.removesuffix('.py')}.ipynb" for lang in texts.LANGUAGES]
    return any(not book.is_file() or book.stat().st_mtime < newest for book in books)


def folder_of(out: str, lang: str) -> str:
    """Where `make notebooks` writes the notebooks of ``lang``: ``out`` for the default language, ``out/<lang>``
    for another (``notebooks/zh/``: Chinese notes and comments)."""
    return out if lang == texts.DEFAULT else f"{out}/{lang}"


def dumps(notebook: dict[str, Any]) -> str:
    """A notebook as the JSON Jupyter writes: stable, readable diffs."""
    return json.dumps(notebook, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def _markdown(text: str, cell_id: str) -> dict[str, Any]:
    # a line break between two Chinese characters is a stray space on the notebook's page
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": disarmed(unwrap(text))}


_LINKING = re.compile(r"([\[\]!])")


def disarmed(markdown: str) -> str:
    """A note's Markdown that can only be text: its HTML escaped, no link or image (a ``javascript:`` URL).

    A note comes from an example (``# %% [markdown]``) or a recording, so from whoever wrote
    it, and the notebook views render it as HTML on the site. Emphasis and code spans stay;
    inside a code span nothing needs escaping, as Markdown shows it as it is.
    """
    parts, last = [], 0
    for start, end in code_spans(markdown):
        parts += [_LINKING.sub(r"\\\1", html.escape(markdown[last:start], quote=False)), markdown[start:end]]
        last = end
    parts.append(_LINKING.sub(r"\\\1", html.escape(markdown[last:], quote=False)))
    return "".join(parts)


def code_spans(markdown: str) -> list[tuple[int, int]]:
    """Where each code span of ``markdown`` is, as CommonMark reads them: a run of backticks that a backslash
    does not escape (`` \\` `` is a backtick, and the run goes on after it), closed by the next run of the same
    length (inside a span, a backslash is itself). In linear time: the runs of each length are taken in order."""
    runs = [(m.start(), m.end()) for m in re.finditer(r"`+", markdown)]
    by_length: dict[int, list[int]] = {}  # length: the indexes of the runs of that length, in order
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    taken = dict.fromkeys(by_length, 0)  # length: how many of its runs were passed
    spans, index = [], 0
    while index < len(runs):
        start, end = runs[index]
        before = start
        while before > 0 and markdown[before - 1] == "\\":  # each backslash is counted once: they end a run
            before -= 1
        opening = start + (start - before) % 2  # an escaped backtick is text
        closers = by_length.get(end - opening, [])
        while taken.get(end - opening, 0) < len(closers) and closers[taken[end - opening]] <= index:
            taken[end - opening] += 1
        if opening == end or taken.get(end - opening, 0) >= len(closers):
            index += 1  # no span: the backticks are text
            continue
        closer = closers[taken[end - opening]]
        spans.append((opening, runs[closer][1]))
        index = closer + 1
    return spans


def _code(cell: Cell, source: str, shown: Any, count: int) -> dict[str, Any]:
    outputs: list[dict[str, Any]] = []
    if shown is not None:
        if shown.output:
            outputs.append({"name": "stdout", "output_type": "stream", "text": shown.output})
        if shown.traceback:
            line = shown.traceback.rstrip("\n").splitlines()[-1]
            name, _, value = line.partition(": ")
            outputs.append(
                {"ename": name, "evalue": value, "output_type": "error", "traceback": shown.traceback.splitlines()}
            )
        outputs += [
            {"data": {"image/png": image}, "metadata": {}, "output_type": "display_data"} for image in shown.images
        ]
    metadata: dict[str, Any] = {"tags": list(cell.tags)} if cell.tags else {}
    return {
        "cell_type": "code",
        "execution_count": count if shown is not None else None,
        "id": (cell.name or f"cell-{cell.index}")[:64],
        "metadata": metadata,
        "outputs": outputs,
        "source": source.rstrip("\n"),
    }


def _runnable_cells(example: Example, *, lang: str = texts.DEFAULT) -> dict[int, str]:
    """The runnable source of each cell that differs from the original, by index (:func:`_runnable`)."""
    return _rewritten(example, catching=True, otherwise={}, lang=lang)


def _guarded_cells(example: Example, otherwise: dict[int, str], *, lang: str) -> dict[int, str]:
    """The source of each cell of a downloaded notebook that differs from the original, by index: each
    ``requires-cuda`` cell run only where there is a GPU, and ``otherwise[index]`` where there is none, and
    each check of a measurement reported (:func:`_runnable`). Raising cells stay as the page shows them."""
    return _rewritten(example, catching=False, otherwise=otherwise, lang=lang)


def _rewritten(example: Example, *, catching: bool, otherwise: dict[int, str], lang: str) -> dict[int, str]:
    wrapped = {}
    for cell in example.cells:
        body = cell.source.rstrip("\n")
        runnable = _runnable(example, cell, body, catching=catching, otherwise=otherwise.get(cell.index), lang=lang)
        if runnable != body:
            wrapped[cell.index] = runnable
    if (head := _head(example, catching=catching, torch=False, lang=lang)) and example.cells:  # as_built imports torch
        first = example.cells[0]
        wrapped[first.index] = _after_future(head, wrapped.get(first.index, first.source.rstrip("\n")))
    return wrapped


def gpu_fallback(shown: CellResult | None, env: dict[str, str] | None, *, lang: str = texts.DEFAULT) -> str:
    """The lines a CUDA cell of a downloaded notebook runs where there is no GPU: what ``shown``, its recorded
    output, held (the exception's last line for one that raised), after a sentence naming ``env``, its machine,
    in language ``lang``; without a recording, a sentence that says the cell needs a GPU."""
    words = texts.text(lang)
    if shown is None or env is None:
        return f"print({words['notebook.gpu.none']!r})"
    lines = shown.output.splitlines()
    if shown.traceback:
        lines += shown.traceback.rstrip("\n").splitlines()[-1:]
    said = "printed" if shown.output else "raised" if shown.traceback else "quiet"
    heading = words[f"notebook.gpu.{said}"].format(**in_words(env, lang))
    return "\n".join(f"print({line!r})" for line in [heading, *lines])


def _head(example: Example, *, catching: bool = True, torch: bool = True, lang: str = texts.DEFAULT) -> str:
    """The imports the runnable form adds, each with a comment in ``lang`` on why: traceback for raising cells
    (if ``catching``) and for checks of a measurement, torch for CUDA cells (if ``torch``)."""
    words = texts.text(lang)
    opening = example.cells[0].source.splitlines() if example.cells else []
    raising = catching and any(c.has("raises-exception") for c in example.cells)
    head = ""
    if raising or any(_measured(example, c) for c in example.cells):
        head += f"import traceback  # {words['runnable.traceback']}\n"
    if torch and any(c.has("requires-cuda") for c in example.cells) and "import torch" not in opening:
        head += f"import torch  # {words['runnable.torch']}\n"
    return head


def _after_future(head: str, source: str) -> str:
    lines = source.splitlines()
    at = sum(1 for line in lines if line.startswith("from __future__"))
    return "\n".join([*lines[:at], *head.splitlines(), *lines[at:]])


def _runnable(
    example: Example, cell: Cell, body: str, *, catching: bool = True, otherwise: str | None = None,
    lang: str = texts.DEFAULT,
) -> str:  # fmt: skip
    """``body``, the source of ``cell``, as a reader's machine runs it to the end.

    - A raising cell's caught (if ``catching``).
    - A CUDA cell's guarded, ``otherwise`` run where there is no GPU; one that also raises, caught
      inside the guard: without a GPU it would print ``Torch not compiled with CUDA enabled``
      instead of the error the page shows.
    - A cell that needs a module (``requires-torchvision``) runs where that module imports, and
      elsewhere prints what to install.
    - A check of a measurement (a hidden cell right after a ``varies`` one: a timing, a speed-up)
      reported, not raised, where it does not hold: it depends on the machine and its load. The
      build checks it as written.
    """
    if _measured(example, cell):
        body = _wrap_measured(body, lang)
    if catching and cell.has("raises-exception"):
        body = _wrap_raising(body, lang)
    if cell.module:
        return _wrap_module(body, cell.module, lang)
    if not cell.has("requires-cuda"):
        return body
    return _wrap_cuda(body, otherwise or f"print({texts.text(lang)['runnable.no-gpu']!r})")


def _measured(example: Example, cell: Cell) -> bool:
    """Whether ``cell`` checks a measurement: hidden, right after a cell tagged ``varies``."""
    return cell.has("remove-cell") and cell.index > 0 and example.cells[cell.index - 1].has("varies")


def _wrap_measured(body: str, lang: str) -> str:
    words = texts.text(lang)
    return (
        f"try:\n{_indent(body)}\n"
        f"except AssertionError:  # {words['runnable.measured']}\n"
        f"    print({words['notebook.measured']!r})\n    traceback.print_exc()"
    )


def _wrap_raising(body: str, lang: str) -> str:
    return (
        f"try:\n{_indent(body)}\n"
        f"except Exception:  # {texts.text(lang)['runnable.raised']}\n    traceback.print_exc()"
    )


def _wrap_module(body: str, module: str, lang: str) -> str:
    """``body`` run where ``module`` imports; elsewhere a line that says what to install."""
    words = texts.text(lang)
    return (
        f"try:\n    import {module}  # {words['runnable.module'].format(module=module)}\n"
        f"except ImportError:\n    print({words['runnable.no-module'].format(module=module)!r})\n"
        f"else:\n{_indent(body)}"
    )


def _wrap_cuda(body: str, otherwise: str) -> str:
    return f"if torch.cuda.is_available():\n{_indent(body)}\nelse:\n{_indent(otherwise)}"


def _indent(body: str) -> str:
    """``body`` one block deeper, but for the lines that continue a string of several lines: they are the
    string's value (the script an example writes for a child process), which indenting would change."""
    inside: set[int] = set()
    fstrings = [getattr(tokenize, "FSTRING_START", None), getattr(tokenize, "FSTRING_END", None)]  # Python 3.12
    opened: list[int] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(body).readline):
            if token.type == tokenize.STRING:
                inside.update(range(token.start[0] + 1, token.end[0] + 1))
            elif token.type == fstrings[0]:
                opened.append(token.start[0])
            elif token.type == fstrings[1] and opened:
                inside.update(range(opened.pop() + 1, token.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):  # not Python as a whole: every line, as textwrap does
        return textwrap.indent(body, "    ")
    lines = body.split("\n")
    return "\n".join(line if n in inside or not line.strip() else "    " + line for n, line in enumerate(lines, 1))


def runnable_script(example: Example, *, lang: str = texts.DEFAULT) -> str:
    """The source of ``example``, each cell as :func:`_runnable` writes it, and the notes and comments for ``lang``."""
    example = _notes_of(comments.translated(example, lang), lang)
    lines = example.source.splitlines()
    for cell in sorted(example.cells, key=lambda c: c.lineno, reverse=True):
        first, count = cell.lineno - 1, cell.source.count("\n")
        body = "\n".join(lines[first : first + count])
        if (runnable := _runnable(example, cell, body, lang=lang)) != body:
            lines[first : first + count] = runnable.splitlines()
    if not example.cells:
        return example.source
    # the first lines of the first code cell (a notebook runs them too), after `from __future__`
    opening = example.cells[0].source.splitlines()
    first = example.cells[0].lineno - 1 + sum(1 for line in opening if line.startswith("from __future__"))
    lines[first:first] = _head(example, lang=lang).splitlines()
    return "\n".join(lines) + "\n"


def _notes_of(example: Example, lang: str) -> Example:
    """``example`` with only the notes a reader of ``lang`` gets (source/cells.notes_for).

    Each other note goes with its marker and its lines up to the next marker.
    """
    mine = {note.lineno for note in notes_for(example.notes, lang)}
    others = {note.lineno for note in example.notes} - mine
    if not others:
        return example
    lines = example.source.splitlines(keepends=True)
    for marker, _, body in reversed(split_chunks(example.source)):  # from the end: lines above stay put
        if marker in others:
            del lines[marker - 1 : marker + len(body)]
    return Example.from_source(example.path, example.file, "".join(lines), example.folder)
