"""``memlab site``: both measurements of every SUT as static HTML pages (lab.report.site).

Each folder given is an at-rest result set (its lifecycle set may sit inside it, in
``lifecycle/``, as under results/published/), a lifecycle result set, or a folder holding only
``lifecycle/`` (a row the lifecycle gate alone measures, e.g. an in-memory store). Rows are
grouped by their row name, so an at-rest set and a lifecycle set of the same row — wherever each
was written — land on one SUT page. Every set is verified first; a set that does not verify stops
the command (exit 1) before anything is written, as a report of unverified numbers would mislead.
What it reads and writes with is imported when it runs, so that ``memlab site --help`` loads none
of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from lab.cli.console import fail
from lab.cli.results import err, load_lifecycle, verify_any
from lab.report.inert import inert

if TYPE_CHECKING:
    from lab.report.site import SutResults


def sets_in(folders: tuple[Path, ...]) -> list[tuple[str, Path]]:
    """(kind, folder) of every result set given: ``at_rest`` or ``lifecycle``, a lifecycle set found
    in an at-rest set's ``lifecycle/`` folder included."""
    from lab.lifecycle.verify import is_lifecycle

    out = []
    for folder in folders:
        if not (folder / "manifest.json").is_file() and (folder / "lifecycle" / "manifest.json").is_file():
            out.append(("lifecycle", folder / "lifecycle"))  # a lifecycle-only row's published folder
            continue
        if not (folder / "manifest.json").is_file():
            fail(f"{folder}: not a result set (no manifest.json); give the folder `memlab run` or "
                  "`memlab lifecycle run` wrote")
        if is_lifecycle(folder):
            out.append(("lifecycle", folder))
            continue
        out.append(("at_rest", folder))
        if (folder / "lifecycle" / "manifest.json").is_file():
            out.append(("lifecycle", folder / "lifecycle"))
    return out


def collect(sets: list[tuple[str, Path]]) -> list[SutResults]:
    """The SUTs of the sets, by row name, in the order their rows come; a row in two sets is an error."""
    from lab.report.site import SutResults
    from lab.resultset.loading import Unreadable, load_rows, load_run

    suts: dict[str, SutResults] = {}
    seen: dict[tuple[str, str], Path] = {}
    for kind, folder in sets:
        try:
            rows, run = (load_lifecycle(folder)[0], {}) if kind == "lifecycle" else (load_rows(folder), load_run(folder))
        except Unreadable as exc:
            fail(str(exc))
        for row in rows:
            name = str(row.get("row"))
            where = (kind, f"{name}@{row.get('detection_point') or row.get('position')}")
            if where in seen:
                fail(f"row {where[1]} is in two {kind.replace('_', '-')} sets: {seen[where]} and {folder}; "
                      "give one of them")
            seen[where] = folder
            sut = suts.setdefault(name, SutResults(name=name, rows=[], run=run))
            if kind == "lifecycle":
                sut.lifecycle.append(row)
            else:
                sut.rows.append(row)
                sut.run, sut.root = run, folder
    return list(suts.values())


@click.command("site")
@click.argument("result_dirs", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write index.html and one page per SUT into.")
@click.option("--verify/--no-verify", default=True, show_default=True,
              help="Verify every set first (a set that does not verify: exit 1, nothing written).")
@click.option("--sweeps", "sweeps_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="A folder of sweeps (`memlab sweep`'s --out folders, each with its sweep.json): each swept row's "
                   "page shows its history across releases (verified with the sets). Default: results/sweeps/ "
                   "when that folder exists.")
def site_cmd(result_dirs: tuple[Path, ...], out: Path, verify: bool, sweeps_dir: Path | None = None) -> None:
    """One HTML page per SUT with its at-rest matrix and lifecycle gate together, and an index of
    every row with a lifecycle column. Exit 0 written, 1 a set does not verify, 2 unreadable input."""
    from lab.report.site import write_site
    from lab.resultset.loading import Unreadable

    sets = sets_in(result_dirs)
    if verify:
        try:
            rejected = [(folder, result) for _, folder in sets if not (result := verify_any(folder)).ok]
        except Unreadable as exc:
            fail(str(exc))
        for folder, result in rejected:
            err.print(inert(f"REJECTED {folder}: " + "; ".join(f"{f.ground} {f.file}" for f in result.findings[:5])),
                      highlight=False)
        if rejected:
            fail(f"{len(rejected)} of {len(sets)} result set(s) do not verify; nothing written", 1)
    suts = collect(sets)
    attach_history(suts, sweeps_dir, verify)
    written = write_site(suts, out)
    err.print(inert(f"site: {written[0]} and {len(written) - 1} SUT page(s), from {len(sets)} result set(s)"),
              highlight=False)


def attach_history(suts: list[SutResults], sweeps_dir: Path | None, verify: bool) -> None:
    """Each sweep under ``sweeps_dir`` (default results/sweeps/, when it exists) as its row's history, on
    the row's page (a page of its own for a row no set given holds). With ``verify``, a sweep whose sets
    or record do not verify (lab.sweep.summary.check_sweep) stops the command (exit 1)."""
    from lab.report.site import SutResults
    from lab.resultset.loading import Unreadable
    from lab.sweep.summary import RECORD, check_sweep, load

    if sweeps_dir is None:
        sweeps_dir = Path("results") / "sweeps"
        if not sweeps_dir.is_dir():
            return
    elif not sweeps_dir.is_dir():
        fail(f"--sweeps {sweeps_dir}: no such folder\n  fix: give the folder holding the sweeps (memlab sweep's --out "
             "folders), e.g. results/sweeps")
    folders = [sweeps_dir] if (sweeps_dir / RECORD).is_file() else sorted(
        p for p in sweeps_dir.iterdir() if (p / RECORD).is_file())
    by_name = {s.name: s for s in suts}
    for folder in folders:
        if verify:
            problems = check_sweep(folder)
            if problems:
                err.print(inert(f"REJECTED {folder}: " + "; ".join(problems[:5])), highlight=False)
                fail(f"the sweep in {folder} does not verify (`memlab sweep --check {folder}`); nothing written", 1)
        try:
            doc = load(folder)
        except (Unreadable, ValueError) as exc:
            fail(str(exc))
        sut = by_name.get(doc["row"])
        if sut is None:
            sut = by_name[doc["row"]] = SutResults(name=doc["row"], rows=[], run={})
            suts.append(sut)
        sut.history = doc
