"""Split examples between GPU jobs: evenly by how long each took when last recorded.

Longest first, each to the shard with the least work so far (ties: the lower shard), so
the same inputs always give the same split. An example never recorded weighs the median
of those that were (``DEFAULT`` seconds when none were). ``pins`` sends an example to a
shard number, or to a runner label of its own (one with two GPUs, say): that label is
then a shard of its own, recorded by ``record --shard LABEL``.
"""

from __future__ import annotations

import re
from statistics import median

DEFAULT = 10.0  # seconds an example is assumed to take when nothing has been recorded yet

_SPEC = re.compile(r"^(?P<k>[1-9]\d*)/(?P<n>[1-9]\d*)$")


class ShardError(ValueError):
    """A shard specification or pin that cannot be used."""


def parse(spec: str) -> tuple[int, int] | str:
    """``"2/3"`` as (2, 3); a runner label as itself."""
    if found := _SPEC.match(spec):
        k, n = int(found["k"]), int(found["n"])
        if k > n:
            raise ShardError(f"shard {spec}: K must be between 1 and N")
        return k, n
    if not re.fullmatch(r"[A-Za-z0-9][\w.-]*", spec):
        raise ShardError(f"shard {spec!r}: expected K/N (e.g. 2/3) or a runner label")
    return spec


def plan(paths: list[str], seconds: dict[str, float], shards: int, pins: dict[str, int | str]) -> dict[str, list[str]]:
    """Each shard's examples: keys ``"1/N"`` … ``"N/N"``, then one per pinned runner label."""
    if shards < 1:
        raise ShardError(f"shards: {shards}; at least 1")
    for path, pin in pins.items():
        bad_number = isinstance(pin, int) and not 1 <= pin <= shards
        if isinstance(pin, bool) or not isinstance(pin, (int, str)) or bad_number:
            raise ShardError(f"pin of {path}: {pin!r}; expected a shard between 1 and {shards}, or a runner label")
    default = median(seconds.values()) if seconds else DEFAULT
    weight = {path: seconds.get(path, default) for path in paths}
    names = [f"{k}/{shards}" for k in range(1, shards + 1)]
    result: dict[str, list[str]] = {name: [] for name in names}
    load = dict.fromkeys(names, 0.0)
    for path in sorted(paths, key=lambda p: (-weight[p], p)):
        pinned = pins.get(path)
        if isinstance(pinned, str):
            result.setdefault(pinned, []).append(path)
            continue
        name = names[pinned - 1] if isinstance(pinned, int) else min(names, key=lambda n: (load[n], names.index(n)))
        result[name].append(path)
        load[name] += weight[path]
    return {name: sorted(chosen) for name, chosen in result.items()}


def select(spec: str, paths: list[str], seconds: dict[str, float], pins: dict[str, int | str]) -> list[str]:
    """The examples of shard ``spec`` (``K/N`` or a runner label) among ``paths``."""
    parsed = parse(spec)
    shards = parsed[1] if isinstance(parsed, tuple) else 1
    planned = plan(paths, seconds, shards, {p: pin for p, pin in pins.items() if p in paths})
    return planned.get(spec, [])
