"""Write docs/variant-changes.md: every published cell whose verdict the variants changed, and why.

Compares the published row files of a git revision (by default ``81d3562``, the last whose sets
were measured without the variants) with results/published/ now. For each changed cell: the verdict before and after, the
variant that decided it (its trial, name and reason) and the statements its edit ran; then, per
row, how many variants each case was measured in; then, for each later change of the adversary
(:data:`LATER`), the rows it re-measured, their cells before and after it and every variant whose
verdict moved. Nothing here is typed by hand but :data:`LATER`'s reasons.

    python scripts/variant_changes_doc.py [--before REV]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from rows_doc_common import CASE_IDS, ROOT

PUBLISHED = ROOT / "results" / "published"
OUT = ROOT / "docs" / "variant-changes.md"
MAX_STATEMENT = 400


BEFORE = "81d3562"
#: Later changes of the adversary that re-measured published rows: (title, the revision whose sets were
#: measured before it, the rows re-measured, why those rows and no others).
LATER = [(
    "The adversary fixes of issue 26: a context of several fields, T8's served order, keyed maps",
    "1adc2aa",
    ("atmem-chain", "atmem-chain+checkpoint", "atmem-chain+checkpoint-beside", "crewai-ltm-lancedb"),
    "Re-measured: the rows whose T8 relabels their order key (their layouts declare the timestamp T8 "
    "relabels as the order: created_at), the ones whose T8 effect the served order can decide now. "
    "mem0-qdrant-local's T8 relabels its order key too, but the row is declared unordered, where the "
    "served order still means nothing. Not re-measured: no published row declares a context of several "
    "fields or a keyed map (the editors' path for a context of one field is unchanged), and every other "
    "row's T8 relabels no order key; every published set still verifies (memlab verify re-derives each "
    "cell, the effect check included, and re-runs C3 on its saved evidence with the new code). No cell "
    "moved: in every re-measured row the relabelled order key is the timestamp the read serves too, so "
    "T8's effect was already seen in the served timestamp."),
]


def rows_of(texts: list[str]) -> dict[str, dict]:
    """``<row>@<point>`` -> row file, from the files' texts."""
    out = {}
    for text in texts:
        row = json.loads(text)
        out[f"{row['row']}@{row['detection_point']}"] = row
    return out


def rows_at(rev: str) -> list[str]:
    """The texts of the published row files at git revision ``rev``."""
    git = ["git", "-C", str(ROOT)]
    names = subprocess.run([*git, "ls-tree", "-r", "--name-only", rev, "--", "results/published"],
                           capture_output=True, text=True, check=True).stdout.split()
    return [subprocess.run([*git, "show", f"{rev}:{n}"], capture_output=True, text=True, check=True).stdout
            for n in names if len(n.split("/")) == 5 and n.split("/")[3] == "rows" and n.endswith(".json")]


def _statements(entry: dict) -> list[str]:
    said = ((entry.get("evidence") or {}).get("statements")) or []
    return [s if len(s) <= MAX_STATEMENT else s[:MAX_STATEMENT] + " ..." for s in map(str, said)]


def changed(before: dict[str, dict], after: dict[str, dict]) -> list[str]:
    """The markdown of every changed cell."""
    out = []
    for key in sorted(after):
        if key not in before:
            continue
        for cid in CASE_IDS:
            old, new = before[key]["cells"][cid], after[key]["cells"][cid]
            if old["verdict"] == new["verdict"]:
                continue
            decided = next((v for v in new.get("variants") or [] if v["variant"] == new.get("decided_by")), {})
            out += [f"### {key} {cid}: {old['verdict']} -> {new['verdict']}", "",
                    f"- before: {old.get('reason')}",
                    f"- decided by variant `{new.get('decided_by')}` (trial `{decided.get('trial')}`): "
                    f"{decided.get('reason')}",
                    "- its variants: " + "; ".join(f"`{v['variant']}` {v['verdict']}" for v in new.get("variants") or []),
                    "- the statements its edit ran:", "", "```",
                    *(_statements(decided) or ["(none saved)"]), "```", ""]
    return out


def counts(after: dict[str, dict]) -> list[str]:
    """One line per row: how many trials each case was measured in."""
    lines = ["| row | " + " | ".join(CASE_IDS) + " | variant trials |", "|---" * (len(CASE_IDS) + 2) + "|"]
    for key in sorted(after):
        cells = after[key]["cells"]
        n = [len(cells[c].get("variants") or []) or 1 for c in CASE_IDS]
        lines.append(f"| {key} | " + " | ".join(map(str, n)) + f" | {sum(n) - len(n)} |")
    return lines


def later(title: str, rev: str, names: tuple[str, ...], why: str, after: dict[str, dict]) -> list[str]:
    """The section of one later change: its reason, each re-measured row's cells before and after, and
    every cell or variant whose verdict moved."""
    before = rows_of(rows_at(rev))
    keys = [k for k in sorted(after) if k.split("@")[0] in names]
    moved = [line for line in changed({k: before[k] for k in keys if k in before}, {k: after[k] for k in keys})]
    lines = ["## " + title, "", why, "", f"{sum(1 for line in moved if line.startswith('### '))} cell(s) changed "
             f"against the sets at {rev}.", "",
             "| row | before | after | variants moved |", "|---|---|---|---|"]
    for key in keys:
        old, new = before.get(key, {}).get("cells", {}), after[key]["cells"]
        var = lambda cells: {(c, v["variant"]): v["verdict"] for c in CASE_IDS  # noqa: E731
                             for v in cells.get(c, {}).get("variants") or []}
        shift = [f"{c} `{v}` {var(old).get((c, v))} -> {verdict}" for (c, v), verdict in var(new).items()
                 if var(old).get((c, v)) != verdict]
        short = lambda cells: " ".join(cells[c]["verdict"][:3] if c in cells else "-" for c in CASE_IDS)  # noqa: E731
        lines.append(f"| {key} | {short(old)} | {short(new)} | {'; '.join(shift) or 'none'} |")
    return [*lines, "", *moved]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE, help=f"git revision of the sets before (default {BEFORE})")
    args = parser.parse_args(argv)
    try:
        before = rows_of(rows_at(args.before))
    except subprocess.CalledProcessError as exc:
        print(f"variant_changes_doc: cannot read the published rows at {args.before}: {exc.stderr.strip()}",
              file=sys.stderr)
        return 2
    after = rows_of([p.read_text() for p in sorted(PUBLISHED.glob("*/rows/*.json"))])
    body = changed(before, after)
    text = ["# Cells the variants changed", "",
            "Every published row re-measured with the variants of each case (docs/method.md, \"Variants\"): "
            "each expression of a case the store allows is a trial of its own, and a cell is the weakest of "
            f"them for the SUT. Below, each cell whose verdict differs from the row's set at {args.before} (before the variants), "
            "with the variant that decided it and the statements its edit ran (generated by "
            "`scripts/variant_changes_doc.py` from the sets before and after; the evidence is in each row's "
            "`observations/`). mem0-qdrant-local's T2 and T4 changed for another reason: unordered memory "
            "with a metadata layer expresses them (docs/method.md: only unordered memory with no metadata layer "
            "cannot), so they are measured through the created_at Mem0 keeps and serves.", "",
            f"{sum(1 for line in body if line.startswith('### '))} cell(s) changed.", "", *body,
            "## Trials per case", "", "How many trials each case of each row was measured in (1: its own "
            "expression only).", "", *counts(after), "",
            *(line for change in LATER for line in later(*change, after))]
    OUT.write_text("\n".join(text))
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
