"""``mkdocs-examples run [PATH ...]`` (or ``python -m mkdocs_examples``): run examples without building the site.

``cache list``, ``cache prune`` and ``cache clear`` show and trim the cache of results the site's builds share.

Options come from the `examples` plugin entry of mkdocs.yml, so a run here gives
exactly what the site build gives, and shares its cache.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path

from mkdocs_examples import texts, yaml_files
from mkdocs_examples.environment import DEVICES
from mkdocs_examples.execute.cache import Cache, cache_key, entries, fingerprint
from mkdocs_examples.execute.child import headers
from mkdocs_examples.execute.child.budget import size
from mkdocs_examples.execute.engine import Engine, EngineError, Outcome, Progress, describe, run_options, summary
from mkdocs_examples.publish import notebooks, outputs, review
from mkdocs_examples.recordings import attest, record
from mkdocs_examples.recordings import store as recordings
from mkdocs_examples.results import SiteError
from mkdocs_examples.settings import Site, load_site
from mkdocs_examples.source import comments, keys
from mkdocs_examples.source.cells import Example, ExampleError, find_examples, read_example


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mkdocs-examples", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run examples and report each one")
    run.add_argument("paths", nargs="*", type=Path, help="example files or folders (default: all examples)")
    run.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"), help="default: mkdocs.yml")
    run.add_argument("--show", action="store_true", help="print what each cell printed")
    run.add_argument("--no-cache", action="store_true", help="run even when a cached result exists")
    run.add_argument("--jobs", type=int, help="examples at once (default: the plugin's `jobs`)")
    run.add_argument("--snapshot", type=Path, help="also write every cell's output to this JSON file, for `diff`")
    diff = commands.add_parser("diff", help="Markdown report of the outputs that differ between two snapshots")
    diff.add_argument("old", type=Path, help="`run --snapshot` of the base (e.g. main)")
    diff.add_argument("new", type=Path, help="`run --snapshot` of the change")
    diff.add_argument("--base", default="main", help="what the old snapshot is called in the report")
    diff.add_argument("--recordings", type=Path,
                      help="recordings/ (or one environment's folder): list CUDA recordings made stale")  # fmt: skip
    diff.add_argument("--compare-recordings", nargs=2, type=Path, metavar=("BASE", "HEAD"),
                      help="the base's recordings/ and the change's: list every file the change adds, edits or "
                      "removes there, and whether a key the base trusts signs each recording")  # fmt: skip
    diff.add_argument("--preview", default="", metavar="URL",
                      help="the address of the change's built site: link the pages of each new example there")
    diff.add_argument("--default-language", default="en", metavar="LANG",
                      help="the language the site serves at its root (default: en)")
    code = commands.add_parser("unsandboxed", help="Markdown list of the changed files that run outside the sandbox")
    code.add_argument("changed", type=Path, help="changed paths, one a line, relative to the repository ('-': stdin)")
    code.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"), help="default: mkdocs.yml")
    code.add_argument("--pages", type=Path, metavar="CHECKOUT",
                      help="the change's checkout: also list each changed page's raw HTML (read as text) and "
                      "the keys of its front matter the build refuses")  # fmt: skip
    code.add_argument("--site", type=Path, metavar="SITE",
                      help="the change's built site: also list what the build's last check finds in its HTML files, "
                      "by this checkout's templates (theme.custom_dir) and the installed theme's")  # fmt: skip
    code.add_argument("--nav", nargs=2, type=Path, metavar=("BASE", "HEAD"),
                      help="the configuration file of the base and of the change: a change of it that touches only "
                      "nav and nav_translations is content, not listed")  # fmt: skip
    books = commands.add_parser("notebooks", help="write each example as a runnable notebook, for Colab")
    books.add_argument("out", type=Path, help="folder for <path>.ipynb (this site: notebooks/)")
    books.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"), help="default: mkdocs.yml")
    books.add_argument("--check", action="store_true", help="change nothing; exit 1 if any notebook is out of date")
    said = commands.add_parser("comments", help="write examples/<path>.<lang>.yml: each comment, to translate")
    said.add_argument("paths", nargs="*", type=Path, help="example files or folders (default: all examples)")
    said.add_argument("--lang", default="zh", help="the language to translate the comments into (default: zh)")
    said.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"), help="default: mkdocs.yml")
    kept = commands.add_parser("cache", help="list, prune or clear the cache of example results (option cache_dir)")
    kept.add_argument("action", choices=["list", "prune", "clear"],
                      help="list: its size, and the examples its entries belong to; prune: remove the entries no "
                      "example of this tree can use (deleted or edited examples, another engine, torch or Python), "
                      "and the precompiled headers of this machine's store built for a torch that is gone; "
                      "clear: remove every entry")  # fmt: skip
    kept.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"), help="default: mkdocs.yml")
    record.add_commands(commands)
    args = parser.parse_args(argv)
    if args.command == "cache":
        return _cache(args.config_file, args.action)
    if args.command == "notebooks":
        return _notebooks(args.config_file, args.out, check=args.check)
    if args.command == "comments":
        return _comments(args.config_file, args.paths, args.lang)
    if args.command == "diff":
        return _diff(args.old, args.new, args.base, args.recordings, args.compare_recordings, args.preview,
                     args.default_language)
    if args.command == "unsandboxed":
        return _unsandboxed(args.changed, args.config_file, args.pages, args.site, args.nav)
    if args.command != "run":
        return record.main(args)

    try:
        site = load_site(args.config_file)
        paths = find_examples(site.examples_dir, args.paths)
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    engine = Engine.from_config(site.config, site.root, cache=not args.no_cache, jobs=args.jobs or 0, watch=site.watch)
    engine.start_early()  # with --no-cache, or an empty cache: while the examples are read
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
    if args.snapshot:
        env = next((o.result.env for o in outcomes if o.result.env), {})
        data = outputs.snapshot(outcomes, env, outputs.embedding(site.docs_dir))
        args.snapshot.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    problems = broken + [describe(o) for o in outcomes if o.failure]
    for problem in problems:
        print(f"\n{problem}", file=sys.stderr)
    if note := engine.sandbox_note():
        print(note)
    print(summary(outcomes, time.perf_counter() - start) + (f", {len(broken)} unreadable" if broken else ""))
    if note := engine.cache_problem():
        print(note)
    return 1 if problems else 0


def _cuda_recordings(folder: Path) -> dict[str, recordings.Recording]:
    """The CUDA recordings of ``folder``: a folder of recordings, or the site's recordings (each CUDA environment's)."""
    names = recordings.environment_folders(folder)
    if not names:
        return recordings.read_folder(folder)
    found: dict[str, recordings.Recording] = {}
    for name in names:
        if recordings.read_manifest(folder / name)["device"] == "cuda":
            found.update(recordings.read_folder(folder / name))
    return found


def _diff(old_file: Path, new_file: Path, base: str, folder: Path | None, compare: list[Path] | None = None,
          preview: str = "", default_lang: str = "en") -> int:
    try:
        old, new = outputs.read(old_file), outputs.read(new_file)
        found = _cuda_recordings(folder) if folder else {}
        changed = attest.changes(*compare) if compare else None
    except (outputs.SnapshotError, recordings.RecordingError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    stale = None
    if folder:  # cells stale now, and not before this change

        def outdated(snap: outputs.Snapshot, path: str) -> set[int]:
            if path not in snap.examples:
                return set()
            now = snap.examples[path]["keys"]
            return set(range(keys.held(found[path].keys, now), len(now)))

        stale = [f"`{path}` (cells {', '.join(map(str, sorted(cells)))})" for path in sorted(found)
                 if (cells := outdated(new, path) - outdated(old, path))]  # fmt: skip
    print(outputs.report(old, new, base=base, stale=stale, recordings=changed, preview=preview,
                         default_lang=default_lang), end="")
    return 0


def _unsandboxed(
    changed: Path, config_file: Path, pages: Path | None, built: Path | None = None, nav: list[Path] | None = None
) -> int:
    """Print the summary's list of the changed files that run outside the sandbox, with ``pages`` (the change's
    checkout) the raw HTML and refused front matter of each changed page, and with ``built`` (the change's built
    site) what the build's last check finds in it (nothing where there is none); ``nav``: the base's and the
    change's configuration files, whose difference, if only in the navigation, is content."""
    try:
        text = sys.stdin.read() if str(changed) == "-" else changed.read_text(encoding="utf-8")
        site = load_site(config_file)
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    docs = site.docs_dir.relative_to(site.root) if site.docs_dir.is_relative_to(site.root) else site.docs_dir
    examples = Path(site.config.examples_dir)
    config = config_file.resolve()
    name = config.relative_to(site.root).as_posix() if config.is_relative_to(site.root) else config.name
    try:  # a configuration the change removes, or that cannot be read, is no navigation change
        both = [file.read_text(encoding="utf-8") for file in nav or []]
    except (OSError, UnicodeDecodeError):
        both = []
    content = [name] if both and review.nav_only(*both) else []
    print(review.section(text.splitlines(), examples=examples.as_posix(), docs=docs.as_posix(), content=content),
          end="")  # fmt: skip
    if pages is not None:
        print(review.pages_section(text.splitlines(), pages, docs=docs.as_posix()), end="")
        print(review.front_matter_section(text.splitlines(), pages, docs=docs.as_posix()), end="")
    if built is not None:
        from mkdocs_examples.site import built_html  # needs MkDocs: only for this option

        theme = (yaml_files.load(config_file) or {}).get("theme")
        custom = theme.get("custom_dir") if isinstance(theme, dict) else None
        folders = built_html.template_folders([site.root / str(custom)] if custom else [])
        print(review.built_section(built, folders), end="")
    return 0


def _notebooks(config_file: Path, out: Path, *, check: bool) -> int:
    """Write (or check) ``out/<path>.ipynb`` for every example: no outputs, runs to its end."""
    try:
        site = load_site(config_file)
        paths = find_examples(site.examples_dir, [])
        examples = [read_example(site.examples_dir, path, site.config.folder) for path in paths]
        comments.refuse(examples, texts.LANGUAGES)  # a Chinese notebook is never written with English comments
        wanted = notebooks.committed(examples, out, seed=site.config.seed, threads=site.config.threads)
    except (OSError, ValueError, ExampleError, SiteError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    stale, extra = notebooks.out_of_date(wanted, out)
    if check:
        for name in stale + extra:
            print(f"out of date: {name} (run `make notebooks`)", file=sys.stderr)
        return 1 if stale or extra else 0
    notebooks.write_committed(wanted, stale, extra)
    print(f"{len(wanted)} notebooks in {out}: {len(stale)} written, {len(extra)} removed")
    return 0


def _comments(config_file: Path, paths: list[Path], lang: str) -> int:
    """Write each example's ``<path>.<lang>.yml`` with every comment it has (source/comments.py): new ones empty,
    for the contributor to translate, and none that no longer appears."""
    try:
        site = load_site(config_file)
        found = find_examples(site.examples_dir, paths)
        examples = [read_example(site.examples_dir, p, site.config.folder) for p in found]
    except (OSError, ValueError, ExampleError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    refused: list[str] = []
    for example in examples:
        if why := comments.refused(example, lang):  # never written over, nor through a link
            refused += why
            continue
        file, text = comments.file_of(example, lang), comments.template(example, lang)
        if text is None or (file.exists() and file.read_text(encoding="utf-8") == text):
            continue
        file.write_text(text, encoding="utf-8")
        print(f"wrote {comments.display_of(example, lang)}")
    todo = [problem for example in examples for problem in comments.problems(example, lang)]
    if todo:
        print("\n".join(todo))
    elif not refused:
        print(f"every comment has its {lang} translation")
    for message in refused:
        print(f"refused: {message}", file=sys.stderr)
    return 1 if refused else 0


def _live_keys(site: Site) -> dict[str, str]:
    """The cache key of each example of the tree, on each device, with the site's options and this
    environment (engine, Python, packages): its example's path. No other entry can be read again."""
    config = site.config
    fingerprints = [fingerprint(replace(run_options(config), device=d), list(config.preload)) for d in DEVICES]
    keys: dict[str, str] = {}
    for path in find_examples(site.examples_dir, []):
        try:
            example = read_example(site.examples_dir, path, config.folder)
        except ExampleError:
            continue  # a file that cannot be read runs nothing, and uses no entry
        keys.update((cache_key(example, f), path) for f in fingerprints)
    return keys


def _cache(config_file: Path, action: str) -> int:
    try:
        site = load_site(config_file)
        live = _live_keys(site) if action != "clear" else {}
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    store = Cache(site.root / site.config.cache_dir, site.examples_dir)
    shown = Path(site.config.cache_dir).as_posix()
    if action == "list":
        sizes: dict[str, list[int]] = {}
        for file in store.files():
            sizes.setdefault(live.get(file.stem, ""), []).append(file.stat().st_size)
        for path, found in sorted((p, f) for p, f in sizes.items() if p):
            print(f"{len(found):4} {size(sum(found)):>10}  {path}")
        if stale := sizes.get(""):
            print(f"{len(stale):4} {size(sum(stale)):>10}  (no example of this tree can use them: `cache prune`)")
    else:
        removed = store.prune(live)
        print(f"removed {entries(len(removed))} from {shown}")
    built = headers.default_store()  # shared by every clone on this machine; `clear` leaves it
    if action == "prune":
        for folder in headers.unused(built):
            shutil.rmtree(folder, ignore_errors=True)
            print(f"removed {folder}: inductor's precompiled headers for a torch that is gone")
    count, total = store.usage()
    print(f"{shown}: {entries(count)}, {size(total)}")
    folders, held = headers.usage(built)
    if folders:
        print(f"{built}: inductor's precompiled headers for {folders} torch folders, {size(held)}")
    return 0


def _show(outcome: Outcome) -> None:
    cells = {c.index: c for c in outcome.example.cells}
    for result in outcome.result.cells:
        cell = cells[result.cell]
        print(f"  ── cell {cell.name or cell.index} (line {cell.lineno}) ──")
        text = result.skipped or (result.output + (result.traceback or ""))
        for line in text.rstrip("\n").splitlines():
            print(f"  {line}")
