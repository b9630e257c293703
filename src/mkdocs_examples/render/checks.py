"""The line at the end of a page that says on which torch releases its examples were checked.

Every cell of an example runs in each environment, its hidden checks (``remove-cell``
assertions) too. A page names the releases where every example it embeds ran as it is now:
the build's own, and each published recording of the same source. A check that failed in a
recorded environment (``record --keep-failed``) does not fail the build; the line says "does
not hold on torch X", or "holds since torch Y" where it fails only on releases older than
every release where it holds. (It fails the build, as always, on the build's own release.)
"""

from __future__ import annotations

import re

from mkdocs_examples.recordings.store import Recording, release
from mkdocs_examples.render.provenance import inline
from mkdocs_examples.texts import text as texts


def version_key(version: str) -> tuple[int, ...]:
    """``2.14.1`` → ``(2, 14, 1)``, for sorting releases; parts that are not numbers count as 0."""
    return tuple(int(part) if part.isdigit() else 0 for part in re.split(r"[.]", release(version))[:3])


def render_checks(built: dict[str, str], recorded: dict[str, list[Recording]], folder: str, *, lang: str) -> str:
    """The paragraph of checked releases for a page whose examples' fresh recordings are ``recorded`` (example
    path: its recordings); ``built``: the build's env; ``folder``: the examples folder, as messages name it."""
    if not recorded:
        return ""
    text = texts(lang)
    here = release(built.get("torch", "?"))
    checked: list[set[str]] = []  # per example: the releases its checks ran on
    lines = []
    for path, recordings in sorted(recorded.items()):
        ok = {here} | {release(r.env.get("torch", "?")) for r in recordings if not r.failed}
        checked.append(ok | {release(r.env.get("torch", "?")) for r in recordings if r.failed})
        for failed in sorted({r.failed for r in recordings if r.failed}, key=lambda f: (f.cell, f.message)):
            # named with their builds (2.14.1+cu130): a build of torch may be what breaks a claim
            bad = sorted({r.env.get("torch", "?") for r in recordings if r.failed == failed}, key=version_key)
            values = {"example": f"{folder}/{path}", "line": failed.line or "?", "message": failed.message}
            newest_bad, oldest_ok = max(bad, key=version_key), min(ok, key=version_key)
            if version_key(newest_bad) < version_key(oldest_ok):
                lines.append(text["since"].format(release=oldest_ok, **values))
            else:
                lines.append(text["fails"].format(releases=text["sep"].join(bad), **values))
    everywhere = set.intersection(*checked) if checked else {here}
    releases = sorted(everywhere, key=version_key)
    joined = releases[0] if len(releases) == 1 else f"{text['sep'].join(releases[:-1])} {text['and']} {releases[-1]}"
    body = text["gap"].join(inline(line) for line in [text["checked"].format(releases=joined), *lines])
    return f'\n\n<p class="mx-checked" data-search-exclude><small>{body}</small></p>\n'
