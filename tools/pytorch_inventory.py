"""Write data/pytorch_api.json: every API name PyTorch's documentation publishes -> its page#anchor.

Usage: python tools/pytorch_inventory.py [SOURCE] [--out FILE] [--describe TEXT]

SOURCE is a git directory of pytorch/pytorch (read at HEAD with `git ls-tree`/`git show`) or a
``docs/source`` folder. The script reads the .rst and .md pages (MyST ``{eval-rst}`` blocks and
``{directive}`` fences alike) and records what Sphinx would publish, without importing torch:

- ``.. autosummary::`` with ``:toctree:``: each entry gets a page of its own,
  ``generated/<full.name>.html#<full.name>``; an entry is relative to the current module unless it
  starts with ``torch.``; a leading ``~`` is dropped (it only shortens the shown name);
- ``.. autofunction::``, ``autoclass::``, ``automethod::``, ``autodata::``, ``class::``,
  ``function::`` ... (and their ``py:`` forms): ``<page>.html#<full.name>`` on the page itself;
- an HTML comment in a .md page hides the directives in it (PyTorch keeps "to be documented" lists so);
- ``.. module::``, ``.. automodule::``, ``.. currentmodule::`` set the current module (per page);
  a module itself is published as ``<page>.html#module-<name>`` (by ``module``/``automodule``).

Not recorded: the members that ``:members:`` would add (they need the installed code), directives
nested in another's content (a ``.. class::``'s own ``.. automethod::``), and names that a page
only mentions in prose. The site links only what the file lists.

The file also holds what the site's build would otherwise have to import torch for, read here from
the installed torch (run the script with the torch of requirements.txt):

- ``aliases``: a name torch also exports a documented object under -> the documented name
  (``torch.set_grad_enabled`` -> ``torch.autograd.grad_mode.set_grad_enabled``);
- ``values``: names of values (dtypes, constants, flags), which have no entry of their own.

Both come from the public attributes of the namespaces the documented names live in (the modules
``import torch`` loads, reached attribute by attribute: nothing else is imported) and of the
documented classes. Without SOURCE, the names of ``--out`` are kept and only these are read again
(after a new torch).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

OBJECT = {
    "autofunction", "autoclass", "automethod", "autodata", "autoattribute", "autoexception", "autoproperty",
    "function", "class", "method", "data", "attribute", "exception", "property", "decorator",
}  # fmt: skip
MODULE = {"module", "automodule"}  # publish the module and make it current
_RST = re.compile(r"^(?P<indent>\s*)\.\. (?:py:)?(?P<name>[\w-]+)::\s*(?P<arg>.*?)\s*$")
_MYST = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|:{3,})\{(?:py:)?(?P<name>[\w-]+)\}\s*(?P<arg>.*?)\s*$")
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def pages(source: Path) -> Iterator[tuple[str, str]]:
    """(path relative to docs/source, text) of every .rst and .md page, from a folder or a git directory."""
    if (source / "HEAD").is_file() and (source / "objects").is_dir():  # a bare git directory
        listed = _git(source, "ls-tree", "-r", "--name-only", "HEAD", "docs/source").splitlines()
        for path in sorted(listed):
            if path.endswith((".rst", ".md")):
                yield path.removeprefix("docs/source/"), _git(source, "show", f"HEAD:{path}")
        return
    folder = source / "docs" / "source" if (source / "docs" / "source").is_dir() else source
    for file in sorted(folder.rglob("*")):
        if file.suffix in (".rst", ".md") and file.is_file():
            yield file.relative_to(folder).as_posix(), file.read_text(encoding="utf-8")


def _git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True, check=True).stdout


def names_of_page(path: str, text: str) -> dict[str, str]:
    """The names one page publishes: full name -> "page#anchor" (the page path as Sphinx writes it)."""
    page = re.sub(r"\.(rst|md)$", ".html", path)
    if path.endswith(".md"):  # an HTML comment hides what it holds from MyST
        text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    found: dict[str, str] = {}
    module = ""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = _RST.match(lines[i]) or _MYST.match(lines[i])
        i += 1
        if not match:
            continue
        name, arg = match["name"], match["arg"]
        if name == "eval-rst":
            continue  # reST inside a MyST page: read on, line by line
        body, i = _body(lines, i, match)
        if name in MODULE or name == "currentmodule":
            module = "" if arg == "None" else arg
            if name in MODULE and module:
                found.setdefault(module, f"{page}#module-{module}")
        elif name == "autosummary" and any(re.match(r"\s*:toctree:", line) for line in body):
            for entry in body:
                entry = entry.strip().lstrip("~")
                if entry and not entry.startswith(":") and (word := _NAME.fullmatch(entry)):
                    full = _full(word[0], module)
                    found.setdefault(full, f"generated/{full}.html#{full}")
        elif name in OBJECT and (word := _NAME.match(arg)):
            full = _full(word[0], module)
            found.setdefault(full, f"{page}#{full}")
    return found


def _body(lines: list[str], i: int, match: re.Match[str]) -> tuple[list[str], int]:
    """The lines of a directive's content, and the index of the line after it."""
    body = []
    if "fence" in match.groupdict() and match["fence"]:  # MyST: up to the closing fence
        while i < len(lines) and lines[i].strip() != match["fence"]:
            body.append(lines[i])
            i += 1
        return body, i + 1
    indent = len(match["indent"])  # reST: the lines indented deeper, blank ones included
    while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
        body.append(lines[i])
        i += 1
    return body, i


def _full(name: str, module: str) -> str:
    return name if not module or name == "torch" or name.startswith("torch.") else f"{module}.{name}"


def inventory(source: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for path, text in pages(source):
        for name, target in names_of_page(path, text).items():
            # a name's own page (autosummary's) wins; else the first page, in path order, that describes it
            if name not in found or (target.startswith("generated/") and not found[name].startswith("generated/")):
                found[name] = target
    return dict(sorted(found.items()))


def aliases_and_values(names: dict[str, str], torch: Any = None) -> tuple[dict[str, str], list[str]]:
    """The other names of documented objects (name -> documented name), and the names of values, in the
    namespaces of ``names`` as ``torch`` (default: the installed one, imported) lays them out."""
    torch = importlib.import_module("torch") if torch is None else torch
    spaces: dict[str, Any] = {}
    for name in names:
        parts = name.split(".")
        for cut in range(1, len(parts) + 1):
            space = ".".join(parts[:cut])
            found = None if space in spaces else _attribute(torch, parts[1:cut])
            if inspect.ismodule(found) or (space in names and inspect.isclass(found)):
                spaces[space] = found
    aliases, values = {}, []
    for space, holder in spaces.items():
        for attribute in dir(holder):
            written = f"{space}.{attribute}"
            if attribute.startswith("_") or written in names:
                continue
            if (value := _attribute(holder, [attribute])) is None:
                continue
            if (documented := _own_name(value)) in names:
                aliases[written] = documented
            elif (inspect.ismodule(holder) or space == "torch.Tensor") and not _named_kind(value):
                values.append(written)  # of a class, only the tensor's: the others' are mostly Python's plumbing
    return dict(sorted(aliases.items())), sorted(values)


def _named_kind(value: Any) -> bool:
    """Whether ``value`` is of a kind the documentation gives entries to: a module, a class, a function."""
    return inspect.ismodule(value) or inspect.isclass(value) or callable(value)


def _own_name(value: Any) -> str:
    """Where ``value`` is defined (``module.qualified.name``); "" for a value without a name of its own."""
    try:
        return f"{value.__module__}.{value.__qualname__}"
    except Exception:  # no such attributes, or a lazy namespace that raises for any name
        return ""


def _attribute(value: Any, path: list[str]) -> Any:
    for part in path:
        try:
            value = getattr(value, part)
        except Exception:  # not there, or a lazy attribute that raises
            return None
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "source", type=Path, nargs="?",
        help="a pytorch/pytorch git directory or its docs/source folder (none: keep the names of --out)",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=Path(__file__).parent.parent / "data" / "pytorch_api.json")
    parser.add_argument("--describe", default="", help="where the sources came from (commit, version)")
    args = parser.parse_args(argv)
    if args.source is None:
        try:
            kept = json.loads(args.out.read_text(encoding="utf-8"))
            source, names = kept["source"], kept["names"]
        except (OSError, ValueError, KeyError, TypeError) as error:
            print(f"error: {args.out} holds no names to keep ({error}): give SOURCE", file=sys.stderr)
            return 2
    elif not args.source.exists():
        print(f"error: {args.source} does not exist: give a pytorch/pytorch git dir or docs/source", file=sys.stderr)
        return 2
    else:
        source, names = args.describe, inventory(args.source)
    if not names:
        print(f"error: no documented names found under {args.source}: is it PyTorch's docs/source?", file=sys.stderr)
        return 1
    aliases, values = aliases_and_values(names)
    torch = importlib.import_module("torch").__version__
    data = {"source": source, "torch": torch, "names": names, "aliases": aliases, "values": values}
    args.out.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(names)} names, {len(aliases)} aliases and {len(values)} values (torch {torch}) written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
