"""The torch releases where a check holds: a cell's ``holds=">=2.7"``.

A claim that is true on some releases of the recorded range and not on others says so in its
cell's header::

    # %% gather-int32-checks tags=["remove-cell"] holds=">=2.8"
    # %% lite-mode raises="RuntimeError: Unrecognized mode=lite…" holds="<2.7"

The range is one bound or two, comma-separated, of torch minor releases: ``>=2.8``, ``<2.14``,
``>=2.7,<2.14`` (a patch release is in the range of its minor: 2.14.1 is not ``<2.14``), and any
minor releases left out of it: ``!=2.6``. Where
the check fails on a release outside the range, the run goes on past it and records it as a
failure its declaration expects (execute/child/runner.py); inside the range, a failure stops the
run as any failed check does. The build compares the range with what every release recorded
(recordings/declared.py), and pages say it in the reader's words ("torch 2.8 and later").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BOUND = re.compile(r"^(?P<op>>=|<|!=)\s*(?P<major>\d+)\.(?P<minor>\d+)$")
EXAMPLE = 'holds=">=2.8"'  # what messages suggest


class HoldsError(ValueError):
    """A range that cannot be read: the message says how to write one."""


@dataclass(frozen=True)
class Holds:
    """A range of torch minor releases: from ``since`` (inclusive) up to ``until`` (exclusive); None: unbounded."""

    since: tuple[int, int] | None = None
    until: tuple[int, int] | None = None
    but: tuple[tuple[int, int], ...] = ()  # minor releases left out of the range

    @classmethod
    def parse(cls, text: str) -> Holds:
        since = until = None
        but: list[tuple[int, int]] = []
        for part in text.split(","):
            match = _BOUND.match(part.strip())
            if not match:
                raise HoldsError(f"holds= names torch minor releases, as >=2.8, <2.14, >=2.7,<2.14 or !=2.6; "
                                 f"not {text!r}")
            bound = (int(match["major"]), int(match["minor"]))
            if match["op"] == "!=":
                but.append(bound)
            elif match["op"] == ">=":
                if since is not None:
                    raise HoldsError(f"holds= {text!r} has two lower bounds")
                since = bound
            else:
                if until is not None:
                    raise HoldsError(f"holds= {text!r} has two upper bounds")
                until = bound
        if since is not None and until is not None and since >= until:
            raise HoldsError(f"holds= {text!r} holds on no release: its lower bound is not below its upper one")
        return cls(since, until, tuple(sorted(set(but))))

    def __str__(self) -> str:
        since = [f">={_dotted(self.since)}"] if self.since else []
        until = [f"<{_dotted(self.until)}"] if self.until else []
        return ",".join(since + until + [f"!={_dotted(b)}" for b in self.but])

    def covers(self, version: str) -> bool:
        """Whether torch ``version`` (``2.14.1+cpu``, ``2.6.0``) is in the range."""
        release = minor(version)
        if release is None:
            return False
        return ((self.since is None or release >= self.since) and (self.until is None or release < self.until)
                and release not in self.but)  # fmt: skip

    @property
    def last(self) -> tuple[int, int] | None:
        """The last minor release in the range, where its upper bound names one after a minor above 0."""
        if self.until is None:
            return None
        major, number = self.until
        return (major, number - 1) if number > 0 else None

    def words(self, text: dict[str, str]) -> str:
        """The range in a reader's words, from the language's table (texts.py: ``holds.*``)."""
        if not self.but:
            return self._bounds(text)
        but = text["sep"].join(_dotted(b) for b in self.but)
        if self.since is None and self.until is None:
            return text["holds.but.only"].format(releases=but)
        return text["holds.but"].format(range=self._bounds(text), releases=but)

    def _bounds(self, text: dict[str, str]) -> str:
        last = self.last
        if self.since and self.until:
            if last is not None:
                if last == self.since:
                    return text["holds.only"].format(release=_dotted(self.since))
                return text["holds.between"].format(since=_dotted(self.since), last=_dotted(last))
            return text["holds.between.before"].format(since=_dotted(self.since), until=_dotted(self.until))
        if self.since:
            return text["holds.since"].format(release=_dotted(self.since))
        if last is not None:
            return text["holds.until"].format(release=_dotted(last))
        return text["holds.before"].format(release=_dotted(self.until))


def minor(version: str) -> tuple[int, int] | None:
    """``2.14.1+cpu`` → (2, 14); None for a version that is not one."""
    match = re.match(r"^(\d+)\.(\d+)", version)
    return (int(match[1]), int(match[2])) if match else None


def _dotted(release: tuple[int, int] | None) -> str:
    return ".".join(map(str, release)) if release else ""
