"""``python -m mkdocs_examples run [PATH ...]``: run examples without building the site.

Options come from the `examples` plugin entry of mkdocs.yml, so a run here gives
exactly what the site build gives, and shares its cache.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from mkdocs.config import load_config
from mkdocs.exceptions import ConfigurationError

from mkdocs_examples import notebooks
from mkdocs_examples.cells import Example, ExampleError, read_example
from mkdocs_examples.config import ExamplesConfig
from mkdocs_examples.engine import Engine, EngineError, Outcome, Progress, describe, summary
from mkdocs_examples.plugin import ExamplesPlugin


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mkdocs_examples", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run examples and report each one")
    run.add_argument("paths", nargs="*", type=Path, help="example files or folders (default: all examples)")
    run.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"), help="default: mkdocs.yml")
    run.add_argument("--show", action="store_true", help="print what each cell printed")
    run.add_argument("--no-cache", action="store_true", help="run even when a cached result exists")
    run.add_argument("--jobs", type=int, help="examples at once (default: the plugin's `jobs`)")
    books = commands.add_parser("notebooks", help="write each example as a runnable notebook, for Colab")
    books.add_argument("out", type=Path, help="folder for <path>.ipynb (this site: notebooks/)")
    books.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"), help="default: mkdocs.yml")
    books.add_argument("--check", action="store_true", help="change nothing; exit 1 if any notebook is out of date")
    args = parser.parse_args(argv)
    if args.command == "notebooks":
        return _notebooks(args.config_file, args.out, check=args.check)

    try:
        config, root, watch = _plugin_config(args.config_file)
        paths = _select((root / config.examples_dir).resolve(), args.paths)
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    engine = Engine.from_config(config, root, cache=not args.no_cache, jobs=args.jobs or 0, watch=watch)
    examples: list[Example] = []
    broken: list[str] = []
    for path in paths:
        try:
            examples.append(engine.load(path))
        except ExampleError as error:
            print(f"{'BROKEN':7} {'':>8}  {'':6}  {path}")
            broken.append(str(error))

    def report(outcome: Outcome, progress: Progress) -> None:
        status = "FAILED" if outcome.failure else "ok"
        origin = "run" if outcome.origin == "run" else "cached"
        print(f"{status:7} {outcome.result.seconds:7.2f}s  {origin:6}  {outcome.example.path}", flush=True)
        if args.show and not outcome.failure:
            _show(outcome)

    start = time.perf_counter()
    try:
        outcomes = list(engine.run(examples, report).values())
    except EngineError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        engine.close()
    problems = broken + [describe(o) for o in outcomes if o.failure]
    for problem in problems:
        print(f"\n{problem}", file=sys.stderr)
    print(summary(outcomes, time.perf_counter() - start) + (f", {len(broken)} unreadable" if broken else ""))
    if note := engine.cache_problem():
        print(note)
    return 1 if problems else 0


def _notebooks(config_file: Path, out: Path, *, check: bool) -> int:
    """Write (or check) ``out/<path>.ipynb`` for every example: no outputs, runs to its end."""
    try:
        config, root, _ = _plugin_config(config_file)
        examples_dir = (root / config.examples_dir).resolve()
        paths = _select(examples_dir, [])
        wanted = {
            out / f"{path.removesuffix('.py')}.ipynb": notebooks.dumps(
                notebooks.notebook(read_example(examples_dir, path, config.folder))
            )
            for path in paths
        }
    except (OSError, ValueError, ExampleError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    stale = sorted(str(f) for f, text in wanted.items() if not f.exists() or f.read_text(encoding="utf-8") != text)
    extra = sorted(str(f) for f in out.rglob("*.ipynb") if f not in wanted) if out.exists() else []
    if check:
        for name in stale + extra:
            print(f"out of date: {name} (run `make notebooks`)", file=sys.stderr)
        return 1 if stale or extra else 0
    for name in stale:
        Path(name).parent.mkdir(parents=True, exist_ok=True)
        Path(name).write_text(wanted[Path(name)], encoding="utf-8")
    for name in extra:
        Path(name).unlink()
    print(f"{len(wanted)} notebooks in {out}: {len(stale)} written, {len(extra)} removed")
    return 0


def _plugin_config(config_file: Path) -> tuple[ExamplesConfig, Path, list[Path]]:
    """The `examples` options of the site, its root folder, and the folders a build reads or writes."""
    try:
        site = load_config(str(config_file))
    except ConfigurationError as error:
        raise ValueError(f"{config_file}: {error}") from None
    plugin = site.plugins.get("examples")
    if not isinstance(plugin, ExamplesPlugin):
        raise ValueError(f"{config_file} does not use the `examples` plugin")
    return plugin.config, Path(site.config_file_path).resolve().parent, [Path(site.docs_dir), Path(site.site_dir)]


def _select(examples_dir: Path, paths: list[Path]) -> list[str]:
    """Example paths relative to ``examples_dir`` for files and folders given on the command line."""
    chosen: list[Path] = []
    for path in paths or [examples_dir]:
        path = path.parent.resolve() / path.name  # a link is checked where it points when it is read
        if not path.is_relative_to(examples_dir):
            raise ValueError(f"{path} is not inside the examples folder {examples_dir}")
        if path.is_dir():
            chosen += sorted(p for p in path.rglob("*.py") if not p.name.startswith("_"))
        elif path.is_file():
            chosen.append(path)
        else:
            raise ValueError(f"no such example file or folder: {path}")
    return [p.relative_to(examples_dir).as_posix() for p in chosen]


def _show(outcome: Outcome) -> None:
    cells = {c.index: c for c in outcome.example.cells}
    for result in outcome.result.cells:
        cell = cells[result.cell]
        print(f"  ── cell {cell.name or cell.index} (line {cell.lineno}) ──")
        text = result.skipped or (result.output + (result.traceback or ""))
        for line in text.rstrip("\n").splitlines():
            print(f"  {line}")
