"""A sweep's record (``sweep.json``, ``memlab.sweep/1``) and its reading (``summary.md``), and the check
that a record says what its sets hold (:func:`check_sweep`).

``sweep.json`` holds what only the sweep knows — the row, its package and pinned release, the selection
and the releases it named, how each release was resolved (the pins released, with pip's reason; pip's
message for one that did not install), which releases the halving skipped and between which two — and
what the sets give, written out for a reader: each measured release's cells and the changes between
them (:mod:`lab.sweep.lineup`). ``check_sweep`` verifies every set and derives the cells and the
changes again from them: a record that says other than its sets is refused, as ``memlab verify``
refuses a row that says other than its observations.

A sweep's folder::

    sweep.json               the record
    summary.md               the lineup, the changes with their evidence, the releases not measured
    <version>/               the release's at-rest set (memlab run), with lifecycle/ inside when measured
    requirements/<version>.txt   the requirements the release was installed from (lab.sweep.resolve)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from lab import safewrite
from lab.resultset.loading import Unreadable, read_strict
from lab.sweep.lineup import ABSENT, changes, names, set_cells, set_variants, short
from lab.sweep.measure import verify_sets

SCHEMA = "memlab.sweep/1"
RECORD = "sweep.json"
SUMMARY = "summary.md"
#: What each release status means, for the summary.
STATUS_WORDS = {"measured": "measured", "not-installed": "could not be installed", "failed": "could not be measured",
                "skipped": "skipped by the halving", "interrupted": "interrupted (its partial set is kept; run the "
                "same sweep again to complete it)", "pending": "not measured yet (the sweep was interrupted)"}


def measured_cells(doc: dict[str, Any], key: str = "cells") -> list[tuple[str, dict[str, str]]]:
    """(release, cells) of every measured release, oldest first (``key="variants"``: their variants)."""
    return [(r["version"], doc.get(key, {}).get(r["version"], {})) for r in doc["releases"]
            if r["status"] == "measured" and r["version"] in doc.get("cells", {})]


def with_changes(doc: dict[str, Any]) -> dict[str, Any]:
    """The record with its changes (of cells, and of variants) derived from its cells and variants."""
    versions = [r["version"] for r in doc["releases"]]
    doc["changes"] = changes(measured_cells(doc), versions)
    doc["variant_changes"] = changes(measured_cells(doc, "variants"), versions, present_in_both=True)
    return doc


def write(folder: Path, doc: dict[str, Any]) -> None:
    """Write ``sweep.json`` and ``summary.md`` (each whole: lab.safewrite)."""
    with_changes(doc)
    safewrite.write_text(folder / RECORD, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    safewrite.write_text(folder / SUMMARY, markdown(doc))


def load(folder: Path) -> dict[str, Any]:
    """A sweep's record, strictly read; ``Unreadable`` saying what is wrong."""
    path = Path(folder) / RECORD
    if not path.is_file():
        raise Unreadable(f"{path} is missing: not a sweep folder (the --out of `memlab sweep`)")
    doc = read_strict(path)
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise Unreadable(f"{path}: schema {doc.get('schema') if isinstance(doc, dict) else None!r}, expected {SCHEMA!r}")
    for key, kind in (("row", str), ("package", str), ("releases", list), ("cells", dict), ("changes", list),
                      ("variants", dict), ("variant_changes", list)):
        if not isinstance(doc.get(key), kind):
            raise Unreadable(f"{path}: {key!r} missing or not a {kind.__name__}")
    return doc


def check_sweep(folder: Path) -> list[str]:
    """What keeps a sweep from being what its record says (empty: every set verifies, and the cells and
    changes of the record are those the sets give)."""
    folder = Path(folder)
    try:
        doc = load(folder)
    except (Unreadable, ValueError, OSError) as exc:
        return [str(exc)]
    problems = []
    for release in doc["releases"]:
        version, status = release.get("version"), release.get("status")
        sets = {kind: folder / rel for kind, rel in (release.get("sets") or {}).items()}
        if status != "measured":
            if version in doc["cells"]:
                problems.append(f"{version}: {status}, yet the record gives it cells")
            continue
        if not sets:
            problems.append(f"{version}: measured, yet the record names no set")
            continue
        bad = verify_sets({k: str(v) for k, v in sets.items()})
        problems.extend(f"{version}: {p}" for p in bad)
        if bad:
            continue
        root = sets.get("at_rest") or sets["lifecycle"].parent
        try:
            found = {"cells": set_cells(root), "variants": set_variants(root)}
        except (Unreadable, ValueError, OSError) as exc:
            problems.append(f"{version}: its sets cannot be read: {exc}")
            continue
        for key, cells in found.items():
            stated = doc[key].get(version)
            if cells != stated:
                differ = [n for n in names([cells, stated or {}]) if cells.get(n, ABSENT) != (stated or {}).get(n, ABSENT)]
                problems.append(f"{version}: the record's {key} differ from its sets' ({', '.join(differ[:6])})")
    extra = set(doc["cells"]) - {r.get("version") for r in doc["releases"]}
    if extra:
        problems.append(f"cells of releases the record does not list: {', '.join(sorted(extra))}")
    versions = [r["version"] for r in doc["releases"]]
    if changes(measured_cells(doc), versions) != doc["changes"]:
        problems.append("the record's changes are not those its cells give (its summary was edited)")
    if changes(measured_cells(doc, "variants"), versions, present_in_both=True) != doc["variant_changes"]:
        problems.append("the record's variant changes are not those its variants give (its summary was edited)")
    return problems


def lineup(doc: dict[str, Any], only_changed: bool = True, key: str = "cells") -> tuple[list[str], list[list[str]]]:
    """The lineup as a table: the header (cell, then each measured release) and a line per cell (only
    the cells that changed, unless ``only_changed`` is False; ``key="variants"``: the variants)."""
    measured = measured_cells(doc, key)
    moved = {c["cell"] for c in doc.get("changes" if key == "cells" else "variant_changes", [])}
    cells = [n for n in names([c for _, c in measured]) if not only_changed or n in moved]
    header = ["cell" if key == "cells" else "variant", *[v for v, _ in measured]]
    return header, [[n, *[short(c.get(n, ABSENT)) for _, c in measured]] for n in cells]


def change_line(change: dict[str, Any]) -> str:
    """One change in words."""
    between = change.get("unmeasured_between") or []
    where = (f"first in {change['first_new']} (last with {change['old']}: {change['last_old']})" if not between else
             f"between {change['last_old']} ({change['old']}) and {change['first_new']} ({change['new']}); "
             f"{len(between)} release(s) between not measured: {', '.join(between)}")
    return f"{change['cell']}: {change['old']} -> {change['new']}, {where}"


def headline(doc: dict[str, Any]) -> str:
    """What the sweep measured, in one line."""
    counts: dict[str, int] = {}
    for release in doc["releases"]:
        counts[release["status"]] = counts.get(release["status"], 0) + 1
    versions = [r["version"] for r in doc["releases"]]
    span = f"{versions[0]} -> {versions[-1]}" if len(versions) > 1 else versions[0] if versions else "no release"
    parts = ", ".join(f"{n} {STATUS_WORDS.get(s, s).split(' (')[0]}" for s, n in counts.items())
    moved = len({c["cell"] for c in doc.get("changes", [])})
    variants = len({c["cell"] for c in doc.get("variant_changes", [])})
    return (f"{doc['row']}: {doc['package']} {span} ({len(versions)} release(s): {parts}); "
            f"{moved} cell(s) changed" + (f", {variants} variant(s)" if variants else ""))


def markdown(doc: dict[str, Any]) -> str:
    """``summary.md``: the lineup of every cell, the changes with their evidence, the releases not measured."""
    header, lines = lineup(doc, only_changed=False)
    moved = {c["cell"] for c in doc.get("changes", [])}
    out = [f"# Sweep of {doc['row']}: {doc['package']} releases", "",
           f"{headline(doc)}. The row pins {doc['package']} {doc.get('pinned')}; each release was measured as a "
           f"row of its own (`{doc['row']}_v<version>`), its environment the row's pins with the release in place "
           "of the pinned one (a pin the release contradicts released, with pip's reason). Made by `memlab sweep` "
           f"({_selection(doc)}); status {doc.get('status')}; lab {(doc.get('lab') or {}).get('commit')}.", ""]
    if doc.get("changes"):
        out += ["## What changed", ""]
        for change in doc["changes"]:
            evidence = [_evidence(doc, change["last_old"], change["cell"]), _evidence(doc, change["first_new"], change["cell"])]
            out.append(f"- **{change_line(change)}**; evidence: " + ", ".join(f"`{e}`" for e in evidence if e))
        out.append("")
    else:
        out += ["## What changed", "", "No cell changed between the releases measured.", ""]
    if doc.get("variant_changes"):
        out += ["## Expressions of a case that changed", "",
                "A cell is the weakest of its case's expressions (its variants: docs/method.md, \"Variants\"); a "
                "release can change one of them and leave the cell as it was. Each change, with the row file whose "
                "cell lists the variant:", ""]
        for change in doc["variant_changes"]:
            evidence = [_evidence(doc, change["last_old"], change["cell"]), _evidence(doc, change["first_new"], change["cell"])]
            out.append(f"- {change_line(change)}; evidence: " + ", ".join(f"`{e}`" for e in evidence if e))
        out.append("")
    out += ["## Every cell, release by release", "", "Cells that changed are in bold.", "",
            "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for line in lines:
        name = f"**{line[0]}**" if line[0] in moved else line[0]
        out.append("| " + " | ".join([name, *line[1:]]) + " |")
    out += ["", "## Releases", "", "| release | status | environment | set |", "|---|---|---|---|"]
    for release in doc["releases"]:
        out.append(f"| {release['version']} | {_status(release)} | {_environment(release)} | "
                   f"{', '.join(f'`{p}`' for p in (release.get('sets') or {}).values()) or '-'} |")
    failed = [r for r in doc["releases"] if r.get("message")]
    if failed:
        out += ["", "## Messages", ""]
        for release in failed:
            out += [f"{release['version']} ({STATUS_WORDS.get(release['status'], release['status'])}):", "", "```",
                    release["message"].strip(), "```", ""]
    return "\n".join(out).rstrip() + "\n"


def _selection(doc: dict[str, Any]) -> str:
    sel = doc.get("selection") or {}
    given = (f"--versions {' '.join(sel['versions'])}" if sel.get("versions") else
             f"--last {sel['last']}" if sel.get("last") else f"--since {sel.get('since')}")
    return given + (" --bisect" if sel.get("bisect") else "")


def _status(release: dict[str, Any]) -> str:
    text = STATUS_WORDS.get(release["status"], release["status"]).split(" (")[0]
    if release["status"] == "skipped" and release.get("skipped_between"):
        low, high = release["skipped_between"]
        text += f" (same cells at {low} and {high})"
    return text


def _environment(release: dict[str, Any]) -> str:
    resolution = release.get("resolution") or {}
    if not resolution:
        return "-"
    if not resolution.get("ok"):
        return "pip could not resolve it (message below)"
    parts = [f"{r['package']} {r['pinned']} -> {r['resolved'] or 'none'}" for r in resolution.get("released", [])]
    parts += [f"+ {a['package']} {a['version']}" for a in resolution.get("added", [])]
    return "the row's pins" + (f"; released: {'; '.join(parts)}" if parts else "")


def _evidence(doc: dict[str, Any], version: str, cell: str) -> str | None:
    """The row file that holds a release's cell (relative to the sweep)."""
    release = next((r for r in doc["releases"] if r["version"] == version), None)
    if release is None:
        return None
    point = cell.split(" ", 1)[0]
    kind = "lifecycle" if point in ("live", "restarted") else "at_rest"
    folder = (release.get("sets") or {}).get(kind)
    return f"{folder}/rows/{release.get('row')}@{point}.json" if folder else None


def release_entry(version: str, row: str, status: str = "pending") -> dict[str, Any]:
    """A release's entry in the record, before it is measured."""
    return {"version": version, "row": row, "status": status}


def relative_sets(sets: dict[str, str], folder: Path) -> dict[str, str]:
    """Set folders relative to the sweep's folder."""
    return {kind: str(Path(path).resolve().relative_to(Path(folder).resolve())) for kind, path in sets.items()}


def summary_lines(doc: dict[str, Any]) -> Sequence[str]:
    """The end of a sweep in a few lines: the headline, each change, each release not measured."""
    lines = [headline(doc)]
    lines += [f"  changed {change_line(c)}" for c in doc.get("changes", [])]
    variants = doc.get("variant_changes", [])
    lines += [f"  variant changed {change_line(c)}" for c in variants[:12]]
    if len(variants) > 12:
        lines.append(f"  ... and {len(variants) - 12} more variant change(s): summary.md lists them")
    for release in doc["releases"]:
        if release["status"] in ("not-installed", "failed", "interrupted"):
            first = (release.get("message") or "").strip().splitlines()
            lines.append(f"  {release['version']}: {STATUS_WORDS[release['status']]}"
                         + (f": {first[0]}" if first else ""))
    skipped = [r["version"] for r in doc["releases"] if r["status"] == "skipped"]
    if skipped:
        lines.append(f"  skipped by the halving ({len(skipped)}): {', '.join(skipped)}")
    return lines
