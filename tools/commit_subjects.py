"""Check that the subjects of the new commits are at most 72 characters, so `git log --oneline` reads.

    python tools/commit_subjects.py            # the commits since the merge base with main
    python tools/commit_subjects.py --last 10  # the last 10 where there is no main to compare with
    python tools/commit_subjects.py --message .git/COMMIT_EDITMSG  # one message, before git commits it

The last form is the ``commit-msg`` hook of .pre-commit-config.yaml: a subject that is too long
is refused when it is written, not when `make lint` meets it later.

The new commits are those since the merge base with `main` (or `origin/main`); without either, the
last ``--last``. Merge commits are left out: git writes their subjects. Exit status 1 names each
subject that is too long.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

LIMIT = 72


def _git(*args: str) -> str | None:
    done = subprocess.run(["git", *args], capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def new_commits(last: int) -> list[tuple[str, str]]:
    """The new commits, each as its short hash and subject."""
    base = next((found.strip() for ref in ("main", "origin/main") if (found := _git("merge-base", "HEAD", ref))), None)
    span = [f"{base}..HEAD"] if base else ["-n", str(last), "HEAD"]
    log = _git("log", "--no-merges", "--format=%h %s", *span) or ""
    return [(line[: line.index(" ")], line[line.index(" ") + 1 :]) for line in log.splitlines() if " " in line]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--last", type=int, default=10, help="commits to check where there is no main (default 10)")
    parser.add_argument("--message", type=Path, help="check the subject of this commit message file instead")
    args = parser.parse_args(argv)
    if args.message is not None:
        return _check_message(args.message.read_text(encoding="utf-8"))
    long = [(commit, subject) for commit, subject in new_commits(args.last) if len(subject) > LIMIT]
    for commit, subject in long:
        print(f"{commit}: the subject has {len(subject)} characters, more than {LIMIT}: {subject}", file=sys.stderr)
    if long:
        print("Shorten each with `git rebase -i` (reword); the details belong in the body.", file=sys.stderr)
    return 1 if long else 0


def _check_message(text: str) -> int:
    """The subject of a message as git will record it: its first line that is not a comment, stripped."""
    subject = next((line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")), "")
    if len(subject) <= LIMIT:
        return 0
    print(f"the subject has {len(subject)} characters, more than {LIMIT}: {subject}", file=sys.stderr)
    print("Shorten it to one line of what the commit does; the details belong in the body.", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
