"""``memlab verify DIR`` where DIR is no result set but holds sets below it (a published row's folder
holding only ``lifecycle/``, ``results/published/``, a sweep's folder): every set below verified, one
line each with its verdict and kind, then a total; the exit code is the worst of them.

The search is bounded: folders at most :data:`MAX_DEPTH` levels below DIR, in name order (a set's
nested sets follow it: ``row/`` then ``row/lifecycle/``), hidden folders skipped, and no symbolic
link followed (a link could lead out of DIR, or round in a loop): each one passed over is counted in the
total. A set is a folder holding ``manifest.json``, or the ``run.json`` of a run that wrote no manifest yet
(lab.resultset.loading.holds_set). Each set is verified as ``memlab verify SET`` verifies it alone:
a partial set is PARTIAL (or REJECTED when what its manifest pins fails), one that cannot be read
UNREADABLE. More than :data:`MANY` sets: a progress bar on standard error while they are verified
(lab.cli.progress; none with ``-q``), the lines after it.

Exit: the worst verdict, worst first: 1 a set was rejected, 2 one could not be read, 3 one is partial, 0
every set verified. A folder that is no set, with none below, stays the error it was (exit 2).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from lab.report.inert import inert

#: How many folder levels below DIR are searched (results/ -> sweeps/<row>/<release>/lifecycle is 4).
MAX_DEPTH = 4
#: More sets than this are verified under a progress bar.
MANY = 10
#: Exit codes, the worst last: verified, partial, unreadable, rejected.
_ORDER = (0, 3, 2, 1)
_WORDS = {0: "VERIFIED", 1: "REJECTED", 2: "UNREADABLE", 3: "PARTIAL"}


@dataclass
class Found:
    """The sets below a folder, sorted, and the symbolic links not followed."""

    sets: list[Path] = field(default_factory=list)
    links: list[Path] = field(default_factory=list)


@dataclass
class SetVerdict:
    """One set's verdict: its exit code (as ``memlab verify SET``), what it is, one line of why."""

    root: Path
    kind: str | None
    code: int
    detail: str
    data: dict[str, Any]

    @property
    def word(self) -> str:
        return _WORDS[self.code]

    def line(self) -> str:
        return f"{self.word:<10} {self.kind or '?':<9} {_text(self.root)}: {_text(self.detail)}"

    def to_json(self) -> dict[str, Any]:
        return {"result_set": str(self.root), "kind": self.kind, "verdict": self.word, "exit": self.code,
                **{k: v for k, v in self.data.items() if k != "result_set"}}


def _text(value: Any) -> str:
    return inert(value, markup=False)


def sets_below(root: Path, max_depth: int = MAX_DEPTH) -> Found:
    """Every result-set folder below ``root`` (not ``root`` itself), at most ``max_depth`` levels down."""
    from lab.resultset.loading import holds_set

    found = Found()

    def walk(folder: str, depth: int) -> None:
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:  # a folder that cannot be listed holds no set memlab can verify
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_symlink():
                if entry.is_dir():  # a link to a folder: never followed
                    found.links.append(Path(entry.path))
                continue
            if not entry.is_dir(follow_symlinks=False):
                continue
            if holds_set(Path(entry.path)):
                found.sets.append(Path(entry.path))
            if depth < max_depth:
                walk(entry.path, depth + 1)

    walk(str(root), 1)
    found.sets.sort(key=lambda p: p.parts)
    return found


def verdict_of(root: Path, pubkey: Any = None) -> SetVerdict:
    """``root`` verified as ``memlab verify ROOT`` verifies it (partial sets, a set of either kind)."""
    from lab.cli.verification import PARTIAL_EXIT, _partial_gap, verify_any
    from lab.lifecycle.partial import lifecycle_partial
    from lab.lifecycle.verify import is_lifecycle, verify_lifecycle
    from lab.resultset.loading import set_kind
    from lab.resultset.loading import Unreadable
    from lab.resultset.partial import partial
    from lab.resultset.verify import verify

    kind = set_kind(root)
    try:
        part, check = lifecycle_partial(root), verify_lifecycle
        if part is None:
            part, check = (None if is_lifecycle(root) else partial(root)), verify
        if part is not None:
            if part.pinned:
                result = check(root, pubkey)
                failing = [f for f in result.findings if not _partial_gap(f)]
                if failing:
                    return SetVerdict(root, kind, 1, _findings(failing, root), {**result.to_json(), "partial": True})
            return SetVerdict(root, kind, PARTIAL_EXIT, part.lines()[0], part.to_json())
        result = verify_any(root, pubkey)
    except Unreadable as exc:
        return SetVerdict(root, kind, 2, str(exc), {"verified": False, "unreadable": True, "error": str(exc)})
    if not result.ok:
        return SetVerdict(root, kind, 1, _findings(result.findings, root), result.to_json())
    signed = f"signed by {result.signed_by}" if result.signed_by else "not signed"
    return SetVerdict(root, kind, 0, f"{result.rows} row(s), {result.evidence} evidence file(s), {signed}",
                      result.to_json())


def _findings(findings: list[Any], root: Path) -> str:
    grounds = ", ".join(dict.fromkeys(f.ground for f in findings))
    return f"{len(findings)} finding(s): {grounds} (`memlab verify {root}` names each)"


def worst(codes: list[int]) -> int:
    """The worst exit code of ``codes`` (0 for none): rejected, then unreadable, then partial."""
    return max(codes, key=_ORDER.index, default=0)


def verify_below(root: Path, found: Found, pubkey: Any, as_json: bool) -> int:
    """Verify every set of ``found`` (below ``root``), print a line each and the total; the worst exit code."""
    from lab.cli.console import console
    from lab.cli.progress import RunProgress

    verdicts: list[SetVerdict] = []
    if len(found.sets) > MANY:
        with RunProgress(console, total=len(found.sets), first=f"verifying {len(found.sets)} sets") as bar:
            for path in found.sets:
                verdicts.append(verdict_of(path, pubkey))
                bar.step(verdicts[-1].word, str(path.relative_to(root)))  # shown inert by the bar
    else:
        verdicts = [verdict_of(path, pubkey) for path in found.sets]
    code = worst([v.code for v in verdicts])
    counts = {word.lower(): sum(v.code == c for v in verdicts) for c, word in _WORDS.items()}
    if as_json:
        click.echo(json.dumps({"root": str(root), "searched_levels": MAX_DEPTH, "sets": [v.to_json() for v in verdicts],
                               "counts": counts, "links_not_followed": [str(p) for p in found.links],
                               "exit": code}, indent=2))
        return code
    for verdict in verdicts:
        click.echo(verdict.line())
    said = ", ".join(f"{n} {word}" for word, n in counts.items() if n)
    links = f"; {len(found.links)} symbolic link(s) not followed" if found.links else ""
    click.echo(f"{len(verdicts)} set(s) below {_text(root)} (up to {MAX_DEPTH} levels): {said}{links}; exit {code}")
    return code


def nothing_below(root: Path) -> str:
    """The error for a folder that is no set and holds none below: the one ``memlab verify`` gave, and
    that the folders below were searched too."""
    return (f"{root / 'manifest.json'} is missing: not a memlab result set, or its run never finished; nor is any "
            f"folder up to {MAX_DEPTH} levels below it one\n  fix: give a result set's folder (the --out of `memlab "
            "run` or `memlab lifecycle run`; the published ones: results/published/<row>/ and its lifecycle/)")


def note_sets_below(root: Path) -> None:
    """On standard error, for a set that holds other sets below it (a published row's ``lifecycle/``):
    they are not verified with it, and the command that verifies each."""
    from lab.cli.console import console

    below = sets_below(root).sets
    if not below:
        return
    names = ", ".join(_text(p.relative_to(root)) for p in below[:4]) + (", ..." if len(below) > 4 else "")
    console.print(f"note: {_text(root)} holds {len(below)} more set(s) below it, not verified with it: {names} "
                  f"(`memlab verify {_text(below[0])}`)", markup=False, highlight=False, soft_wrap=True)
