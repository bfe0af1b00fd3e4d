"""The order of measurements that halves a range of releases (bisect).

The ends are measured first (the oldest and the newest release a release can be measured of: one that
does not install is passed over for its neighbour). A part of the range whose two measured ends have
the same cells is taken as unchanged: the releases inside it are skipped, and said to be. A part whose
ends differ has its middle measured (or, when the middle does not install, the nearest release to it
that does), and both halves are looked at again, until every change lies between two releases measured
next to each other (or between two with only unmeasurable ones between them). One changed cell in N
releases costs about 2 + log2(N) measurements. The halving assumes a cell that is the same at both ends
of a part did not change and change back inside it; the skipped releases are listed so that a reader
can measure them (``--versions``) where that matters.

    >>> cells = {"1": "A", "2": "A", "3": "A", "4": "B", "5": "B", "6": "B", "7": "B", "8": "B", "9": "B"}
    >>> tried = []
    >>> def measure(v):
    ...     tried.append(v)
    ...     return {"read T1": cells[v]}
    >>> done = halve(list(cells), measure)
    >>> tried
    ['1', '9', '5', '3', '4']
    >>> done.skipped
    {'2': ('1', '3'), '6': ('5', '9'), '7': ('5', '9'), '8': ('5', '9')}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

Cells = dict[str, str]


@dataclass
class Halving:
    """What the halving measured (release -> cells, or None when it could not be measured) and skipped
    (release -> the two measured releases with the same cells around it)."""

    measured: dict[str, Cells | None] = field(default_factory=dict)
    skipped: dict[str, tuple[str, str]] = field(default_factory=dict)


def halve(versions: Sequence[str], measure: Callable[[str], Cells | None]) -> Halving:
    """Measure ``versions`` (oldest first) by halving; ``measure`` gives a release's cells or None."""
    done = Halving()

    def get(i: int) -> Cells | None:
        version = versions[i]
        if version not in done.measured:
            done.measured[version] = measure(version)
        return done.measured[version]

    low = next((i for i in range(len(versions)) if get(i) is not None), None)
    if low is None:
        return done
    high = next((i for i in range(len(versions) - 1, low, -1) if get(i) is not None), None)
    if high is None:
        return done
    parts = [(low, high)]
    while parts:
        i, j = parts.pop()
        if j - i <= 1:
            continue
        if get(i) == get(j):
            for k in range(i + 1, j):
                if versions[k] not in done.measured:
                    done.skipped[versions[k]] = (versions[i], versions[j])
            continue
        middle = _measurable_middle(i, j, get)
        if middle is None:
            continue
        parts.append((middle, j))
        parts.append((i, middle))  # the older half first
    return done


def _measurable_middle(i: int, j: int, get: Callable[[int], Cells | None]) -> int | None:
    """The release nearest to the middle of (i, j), exclusive, that can be measured."""
    mid = (i + j) // 2
    for step in range(j - i):
        for k in (mid + step, mid - step) if step else (mid,):
            if i < k < j and get(k) is not None:
                return k
    return None
