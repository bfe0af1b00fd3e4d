"""How ``memlab verify`` says what it found: VERIFIED, REJECTED with every finding, or PARTIAL.

A partial set (lab.resultset.partial) is never called complete: exit 3 when what a manifest pins
holds (or nothing is pinned yet), 1 when the pinned part does not verify.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import click

from lab.report.inert import inert
from lab.resultset.partial import Partial
from lab.resultset.verify import Verification, verify

#: ``memlab verify``'s exit code for a partial set (never 0: a partial set is never complete).
PARTIAL_EXIT = 3


def verify_any(root: Path, pubkey: Any = None) -> Verification:
    """Verify an at-rest, a lifecycle or a front-door result set (told apart by the manifest's schema;
    a front-door folder by its run.json too)."""
    from lab.frontdoor.folder import is_frontdoor
    from lab.lifecycle.verify import is_lifecycle, verify_lifecycle
    from lab.resultset.verify import verify
    if is_frontdoor(root):
        from lab.frontdoor.verify import verify_frontdoor
        return verify_frontdoor(root, pubkey)
    return verify_lifecycle(root, pubkey) if is_lifecycle(root) else verify(root, pubkey)


def _text(value: Any) -> str:
    """A path, a finding or a name from the set, with its control characters shown (lab.report.inert)."""
    return inert(value, markup=False)


def _partial_gap(finding: Any) -> bool:
    """A finding that says only what a partial set lacks (its run did not complete; a row its run.json
    names has no row file yet), not that what its manifest pins fails."""
    return finding.ground == "run-incomplete" or (finding.ground == "row-missing" and finding.file == "run.json")


def print_verification(result: Verification) -> None:
    """VERIFIED with what was checked, or REJECTED with every finding (and a hint for a changed classifier)."""
    if result.ok:
        signed = f"signed by {result.signed_by}" if result.signed_by else "not signed"
        click.echo(f"VERIFIED {_text(result.root)}: {result.rows} row(s), {result.evidence} evidence file(s), "
                   f"recount and re-derivation agree, {signed}")
        print_unpinned(result.unpinned)
        return
    click.echo(f"REJECTED {_text(result.root)}: {len(result.findings)} finding(s)")
    for f in result.findings:  # file and detail quote the set's own text: shown, never interpreted
        click.echo(f"  {f.ground:<24} {_text(f.file)}: {_text(f.detail)}")
    if any(f.ground == "verdict-not-derivable" for f in result.findings):
        lab = (result.manifest.lab or {}).get("commit")
        click.echo(f"hint: these verdicts were derived by lab commit {_text(lab)}; if the classifier changed since, "
                   f"`memlab analyze {_text(result.root)}` derives a new result set from the same observations")
    print_unpinned(result.unpinned)


def print_unpinned(files: list[str], shown: int = 12) -> None:
    """Name the files no pin covers, so a reader trusts none of them for the set's word (a folder holding
    more than three of them by its name and count)."""
    if not files:
        return
    names = _by_folder(files)
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    click.echo(f"  not pinned by the manifest, so neither verified nor signed: {', '.join(map(_text, names[:shown]))}"
               f"{more} (reports and summaries render the rows: what is verified is the rows and the evidence)")


def _by_folder(files: list[str], most: int = 3) -> list[str]:
    """``files``, those of a top folder holding more than ``most`` of them as ``folder/ (N files)``."""
    tops = [name.split("/", 1)[0] if "/" in name else None for name in files]
    counts = Counter(t for t in tops if t is not None)
    shown = [name if top is None or counts[top] <= most else f"{top}/ ({counts[top]} files)"
             for name, top in zip(files, tops)]
    return list(dict.fromkeys(shown))  # a folder named once, where its first file stood


def verify_partial(part: Partial, pubkey: Any, as_json: bool, check: Any = verify) -> int:
    """A partial set: 3 when what a manifest pins holds (or nothing is pinned yet), 1 when it does not
    (``check``: the verifier of the set's kind)."""
    if part.pinned:
        result = check(part.root, pubkey)  # Unreadable: the command's (exit 2, as JSON with --json)
        if any(not _partial_gap(f) for f in result.findings):  # the pinned part does not hold
            if as_json:
                click.echo(json.dumps({**result.to_json(), "partial": True}, indent=2))
            else:
                print_verification(result)
            return 1
    if as_json:
        click.echo(json.dumps(part.to_json(), indent=2))
    else:
        click.echo(f"PARTIAL {_text(part.root)}: not a complete result set")
        for line in part.lines():
            click.echo(f"  {_text(line)}")
    return PARTIAL_EXIT
