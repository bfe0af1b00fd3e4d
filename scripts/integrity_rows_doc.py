"""Write docs/rows-integrity.md from the committed result sets of the integrity rows.

Every matrix in the document is read from results/published/<row>/rows/*.json (nothing is typed
by hand); the sentence for users is the row's profile notes. Run after re-publishing a row:

    python scripts/integrity_rows_doc.py
"""

from __future__ import annotations

from rows_doc_common import ROOT, installed_version, matrix, published_rows, write_page

from lab.profile import load_profiles  # after rows_doc_common: it puts the repository on sys.path

ROWS = ["inspeximus-default", "inspeximus-rcpt+dir", "inspeximus-rcpt+dir+home", "acrf-memory-guard",
        "langgraph-ledger", "memory-blackbox-md", "memory-blackbox-md+restart", "atelya-attest-chain",
        "atelya-attest-chain+anchor", "continuum-events", "continuum-events+attest", "atmem-chain",
        "atmem-chain+checkpoint", "acrf-memory-guard-readme-entry", "langgraph-ledger+trace-off",
        "memory-blackbox-md-default", "memory-blackbox-md+restart+ledger-off", "atelya-attest-chain-verify-only",
        "atelya-attest-chain+anchor-verify-only", "atelya-attest-chain+anchor-beside",
        "continuum-events+attest-beside", "atmem-chain+checkpoint-beside",
        "memory-blackbox-md+restart+anchor-off"]
UNAVAILABLE = ["hdp-token-content-ref", "hdp-token-uuid", "agent-memory", "recallspection-exact",
               "recallspection-exact+anchor", "surgical-devops-g7"]
# Seconds measured once (2026-11-30, the 2-core development machine, other work running alongside):
# `memlab run --runtime local --jobs 1 --sut <row>` with an empty MEMLAB_CACHE and PIP_NO_CACHE_DIR=1,
# rows in this order, so a row whose driver's environment was already built shows 0 for it.
TIMINGS = {  # row: (environment build, run without the build)
    "inspeximus-default": (13.9, 6.4), "inspeximus-rcpt+dir": (0.0, 5.4), "inspeximus-rcpt+dir+home": (0.0, 5.8),
    "acrf-memory-guard": (7.8, 2.8), "langgraph-ledger": (64.5, 62.3), "memory-blackbox-md": (43.1, 12.7),
    "memory-blackbox-md+restart": (0.0, 11.7), "atelya-attest-chain": (8.2, 6.8),
    "atelya-attest-chain+anchor": (0.0, 6.3), "continuum-events": (36.1, 16.9),
    "continuum-events+attest": (0.0, 20.5), "atmem-chain": (20.5, 13.8), "atmem-chain+checkpoint": (0.0, 11.2),
}


def main() -> None:
    profiles = {p.row: p for p in load_profiles()}
    out = ["# Integrity rows: the subsystems that claim tamper evidence", "",
           "Measured on the local runtime (`memlab run --runtime local --sut '<row>'`); each result set is",
           "committed under `results/published/<row>/` and re-measured by `tests/rows/test_published_rows.py`",
           "(a row with checks of its own by `tests/rows/test_<row>.py`)",
           "(`python3 -m pytest tests/rows -q`). This file is generated from those result sets by",
           "`scripts/integrity_rows_doc.py`. REJ refused · REP reported at read · REP·a reported at",
           "audit only (half credit, observation class b) · ACC accepted (fail) · n/a not expressible.", ""]
    for name in ROWS:
        rows = published_rows(name)
        prof = profiles.get(name)
        out += [f"## {name}", ""]
        if not rows:
            reason = prof.unavailable_reason if prof and prof.status == "unavailable" else "not measured yet"
            out += [f"Not measured: {reason}", ""]
            continue
        r0 = rows[0]
        version = installed_version(r0)
        out += [f"{r0['title']}. SUT {r0['sut']['package']} {r0['sut']['version']} (installed: {version}); "
                f"position: {r0.get('position')}; run {r0.get('run_id')} on {r0.get('date')}.", "", *matrix(rows)]
        out += ["", f"**For a user:** {r0.get('notes')}", ""]
    out += ["## Time per row", "",
            "Measured once on the 2-core development machine with an empty cache (`MEMLAB_CACHE` empty,",
            "`PIP_NO_CACHE_DIR=1`), `--jobs 1`, rows in the order below: a row that shares its driver's",
            "environment with the row before it builds nothing. Seconds.", "",
            "| row | environment build | run |", "|---|---|---|"]
    out += [f"| {name} | {TIMINGS[name][0]:.1f} | {TIMINGS[name][1]:.1f} |" for name in ROWS if name in TIMINGS]
    out += ["", "## Rows no reachable registry serves", ""]
    for name in UNAVAILABLE:
        prof = profiles.get(name)
        out.append(f"- **{name}** ({prof.sut.get('package')} {prof.sut.get('version')}): {prof.unavailable_reason}"
                   if prof else f"- **{name}**: no profile")
    write_page(ROOT / "docs" / "rows-integrity.md", "\n".join(out) + "\n")


if __name__ == "__main__":
    main()
