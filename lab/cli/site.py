"""``memlab site``: both measurements of every SUT as static HTML pages (lab.report.site).

Each folder given is an at-rest result set (its lifecycle and front-door sets may sit inside it, in
``lifecycle/``, ``frontdoor/`` and ``compose/``, as under results/published/), a lifecycle or front-door result set,
or a folder holding only those (a row the at-rest method does not measure, e.g. an in-memory store). Rows are
grouped by their row name, so an at-rest set and a lifecycle set of the same row — wherever each
was written — land on one SUT page. Every set is verified first; a set that does not verify stops
the command (exit 1) before anything is written, as a report of unverified numbers would mislead.
A progress bar on standard error (none with ``-q``) names each set and sweep as it is verified and the
folder being written; the last line names what was written.
What it reads and writes with is imported when it runs, so that ``memlab site --help`` loads none
of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lab.cli.console import fail
from lab.cli.results import err, load_lifecycle
from lab.report.inert import inert

if TYPE_CHECKING:
    from lab.report.site import SutResults


#: The sets a published row's folder may hold beside (or instead of) its at-rest set.
INSIDE = ("lifecycle", "frontdoor", "compose")


def sets_in(folders: tuple[Path, ...]) -> list[tuple[str, Path]]:
    """(kind, folder) of every result set given: ``at_rest``, ``lifecycle`` or ``frontdoor``, the sets
    found in a row folder's ``lifecycle/`` and ``frontdoor/`` included (a row folder may hold no
    at-rest set of its own)."""
    from lab.frontdoor.folder import is_frontdoor
    from lab.lifecycle.verify import is_lifecycle

    out = []
    for folder in folders:
        inside = [(kind, folder / kind) for kind in INSIDE if (folder / kind / "manifest.json").is_file()]
        if not (folder / "manifest.json").is_file() and inside:
            out += inside  # a published row folder with no at-rest set
            continue
        if not (folder / "manifest.json").is_file():
            fail(f"{folder}: not a result set (no manifest.json); give the folder `memlab run`, "
                  "`memlab lifecycle run` or `memlab frontdoor run` wrote")
        if is_frontdoor(folder):
            out.append(("frontdoor", folder))
            continue
        if is_lifecycle(folder):
            out.append(("lifecycle", folder))
            continue
        out += [("at_rest", folder), *inside]
    return out


def _frontdoor_rows(folder: Path) -> tuple[list[Any], Any]:
    """A front-door set's rows (each read by its schema's reader) and its run."""
    import json

    from lab.frontdoor.rows import read_row
    from lab.frontdoor.saved import RunRecord

    run = RunRecord.model_validate(json.loads((folder / "run.json").read_text()))
    return [read_row(json.loads((folder / e.file).read_text()))[0] for e in run.rows], run


def collect(sets: list[tuple[str, Path]]) -> list[SutResults]:
    """The SUTs of the sets, by row name, in the order their rows come; a row in two sets is an error."""
    from lab.report.site import SutResults
    from lab.resultset.loading import Unreadable, load_row_records, load_run
    from lab.resultset.run_record import RunRecord

    suts: dict[str, SutResults] = {}
    seen: dict[tuple[str, str], Path] = {}
    for kind, folder in sets:
        if kind == "compose":  # a composition: its compose rows (its at-rest trials are the row's again)
            from lab.resultset.composition import load_rows as compose_rows
            for row in compose_rows(folder):
                suts.setdefault(row.row, SutResults(name=row.row, rows=[])).compose.append(row)
            continue
        if kind == "frontdoor":
            results, fd_run = _frontdoor_rows(folder)
            for result in results:
                name = result.sut.row if result.sut else result.store
                where = (kind, f"{name}@{result.position}")
                if where in seen:
                    fail(f"row {where[1]} is in two front-door sets: {seen[where]} and {folder}; give one of them")
                seen[where] = folder
                suts.setdefault(name, SutResults(name=name, rows=[])).frontdoor.append((result, fd_run))
            continue
        try:
            rows, run = ((load_lifecycle(folder)[0], RunRecord()) if kind == "lifecycle"
                         else (load_row_records(folder), load_run(folder)))
        except Unreadable as exc:
            fail(str(exc))
        for row in rows:  # a lifecycle row as its JSON, an at-rest one by its record
            name, point = ((str(row.get("row")), row.get("position")) if kind == "lifecycle"
                           else (row.row, row.detection_point))
            where = (kind, f"{name}@{point}")
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
    """One HTML page per SUT with its at-rest matrix, lifecycle gate and front door together, and an index
    of every row with a lifecycle column. The index is moved into place after every page. Exit 0 written, 1
    a set does not verify, 2 unreadable input, 130 interrupted, 143 terminated."""
    from lab.cli.console import console
    from lab.cli.progress import RunProgress
    from lab.cli.verification import verify_any
    from lab.report.site import write_site
    from lab.resultset.loading import Unreadable

    sets = sets_in(result_dirs)
    sweeps = sweep_folders(sweeps_dir)
    # the bar: a step per set verified, per sweep verified and read, and the pages written; what refuses
    # a set or a sweep is said once the bar has stopped
    rejected: list[str] = []
    refusal = ""
    with RunProgress(console, total=(len(sets) if verify else 0) + len(sweeps) + 1,
                     first=f"site: {len(sets)} result set(s)", gone_on_error=True) as bar:
        for _, folder in sets if verify else ():
            bar.step("verifying", str(folder), advance=0)
            try:
                result = verify_any(folder)
            except Unreadable as exc:
                fail(str(exc))
            if not result.ok:
                rejected.append(f"REJECTED {folder}: " + "; ".join(f"{f.ground} {f.file}" for f in result.findings[:5]))
            bar.step("verified" if result.ok else "REJECTED", str(folder))
        if rejected:
            refusal = f"{len(rejected)} of {len(sets)} result set(s) do not verify; nothing written"
        else:
            bar.step("reading", f"{len(sets)} result set(s)", advance=0)
            suts = collect(sets)
            if sweeps_dir is not None and not sweeps_dir.is_dir():
                fail(f"--sweeps {sweeps_dir}: no such folder\n  fix: give the folder holding the sweeps (memlab sweep's "
                     "--out folders), e.g. results/sweeps")
            rejected, refusal = attach_history(suts, sweeps, verify, bar)
        if not rejected:
            bar.step("writing", f"{out}: the index and {len(suts)} SUT page(s)", advance=0)
            written = write_site(suts, out)
            bar.step("wrote", str(out))
    if rejected:
        for line in rejected:
            err.print(inert(line), highlight=False)
        fail(refusal, 1)
    err.print(inert(f"site: {written[0]} and {len(written) - 1} SUT page(s), from {len(sets)} result set(s)"
                    + (f" and {len(sweeps)} sweep(s)" if sweeps else "")), highlight=False)


def sweep_folders(sweeps_dir: Path | None) -> list[Path]:
    """The sweeps under ``sweeps_dir`` (default results/sweeps/), or ``sweeps_dir`` itself when it is one;
    none when the folder does not exist (a --sweeps folder that does not is refused once the sets are read)."""
    from lab.sweep.summary import RECORD

    sweeps_dir = Path("results") / "sweeps" if sweeps_dir is None else sweeps_dir
    if not sweeps_dir.is_dir():
        return []
    return [sweeps_dir] if (sweeps_dir / RECORD).is_file() else sorted(
        p for p in sweeps_dir.iterdir() if (p / RECORD).is_file())


def attach_history(suts: list[SutResults], folders: list[Path], verify: bool,
                   bar: Any = None) -> tuple[list[str], str]:
    """Each sweep of ``folders`` (:func:`sweep_folders`) as its row's history, on the row's page (a page of
    its own for a row no set given holds), a step of ``bar`` each. With ``verify``, a sweep whose sets or
    record do not verify (lab.sweep.summary.check_sweep) stops there: returned are its REJECTED line and
    the refusal (the command exits 1 with them); else ``([], "")``."""
    from lab.report.site import SutResults
    from lab.resultset.loading import Unreadable
    from lab.sweep.summary import check_sweep, load

    by_name = {s.name: s for s in suts}
    for folder in folders:
        if verify:
            if bar is not None:
                bar.step("verifying the sweep in", str(folder), advance=0)
            problems = check_sweep(folder)
            if problems:
                return ([f"REJECTED {folder}: " + "; ".join(problems[:5])],
                        f"the sweep in {folder} does not verify (`memlab sweep --check {folder}`); nothing written")
        try:
            doc = load(folder)
        except (Unreadable, ValueError) as exc:
            fail(str(exc))
        sut = by_name.get(doc["row"])
        if sut is None:
            sut = by_name[doc["row"]] = SutResults(name=doc["row"], rows=[])
            suts.append(sut)
        sut.history = doc
        if bar is not None:
            bar.step("verified the sweep in" if verify else "read the sweep in", str(folder))
    return [], ""
