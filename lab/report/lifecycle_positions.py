"""The two positions of a lifecycle row side by side: a check as ``STATUS v/o``, erasure-at-rest
counts, and what differs between the live and the restarted measurement (check counts, findings
with what was served, current facts, erasure at rest), as Markdown-style lines (``- `name`: …``)
that the rows document and the per-SUT HTML page both show."""

from __future__ import annotations

from lab.lifecycle.judgement import CHECKS

POSITIONS = ("live", "restarted")
SHORT = {"PASS": "PASS", "FAIL": "FAIL", "NOT TESTED": "n/t"}


def cell(check: dict) -> str:
    """A check as STATUS v/o."""
    status = SHORT.get(check["status"], check["status"])
    return status if check["status"] == "NOT TESTED" else f"{status} {check['violations']}/{check['opportunities']}"


def erasure_cell(e: dict) -> str:
    """Erasure-at-rest counts of a position."""
    return (f"{e.get('present', 0)} present · {e.get('not_found', 0)} not found · "
            f"{e.get('not_attributable', 0)} not attributable · {e.get('not_measured', 0)} not measured")


def finding_keys(record: dict) -> dict[tuple, dict]:
    """Each finding of a row by (scenario, step, check, values)."""
    return {(f["scenario"], f["step"], f["check"], tuple(v["value"] for v in f["values"])): f
            for f in record["findings"]}


def differences(records: dict[str, dict]) -> list[str]:
    """What differs between live and restarted: check counts, findings (with what was served)."""
    if set(records) != set(POSITIONS):
        return ["Only one position measured."]
    live, rest = records["live"], records["restarted"]
    out = []
    for name in (n for n in CHECKS if n in live["checks"] and n in rest["checks"]):  # a revision's own checks
        a, b = cell(live["checks"][name]), cell(rest["checks"][name])
        if a != b:
            out.append(f"- `{name}`: live {a}, restarted {b}.")
    fl, fr = finding_keys(live), finding_keys(rest)
    for where, only, key in (("live", fl, set(fl) - set(fr)), ("restarted", fr, set(fr) - set(fl))):
        for k in sorted(key, key=str):
            f = only[k]
            out.append(f"- only {where}: `{f['check']}` in {f['scenario']} step {f['step']}: "
                       f"{', '.join(repr(v['value']) for v in f['values'])} served ({served_line(f['served'])}).")
    acc = [p for p in POSITIONS if records[p]["current_fact_accuracy"] != live["current_fact_accuracy"]]
    if acc:
        out.append("- current facts: " + ", ".join(
            f"{p} {records[p]['current_fact_accuracy']['hits']}/{records[p]['current_fact_accuracy']['opportunities']}"
            for p in POSITIONS) + ".")
    el, er = (erasure_cell(records[p]["erasure_at_rest"]) for p in POSITIONS)
    if el != er:
        out.append(f"- erasure at rest (a storage finding, not a check): live {el}; restarted {er} -- "
                   "per delete, with files and offsets, below.")
    hits = {p: sum(h.get("hit_count", len(h["hits"])) for h in records[p]["erasure_at_rest"].get("evidence", []))
            for p in POSITIONS}
    if hits["live"] != hits["restarted"] and el == er:
        out.append(f"- erasure at rest: the same statuses, but {hits['live']} hit(s) of the deleted values live and "
                   f"{hits['restarted']} restarted (per delete below).")
    files = {p: hit_files(records[p]) for p in POSITIONS}
    if files["live"] != files["restarted"] and ["none"] not in files.values():
        out.append("- the deleted values were found in other files: live " + ", ".join(files["live"]) +
                   "; restarted " + ", ".join(files["restarted"]) + ".")
    return out or ["None: every check, count, finding and erasure-at-rest status is the same in both positions."]


def hit_files(record: dict) -> list[str]:
    """The files holding a deleted value, as volume/path (a file two folders down as its folder, …)."""
    names = {f"{h['volume']}/{h['file']}" for ev in record["erasure_at_rest"].get("evidence", []) for h in ev["hits"]}
    return sorted({"/".join(n.split("/")[:2]) + "/…" if n.count("/") > 1 else n for n in names}) or ["none"]


def served_line(text: str) -> str:
    return " / ".join(text.splitlines())[:200]
