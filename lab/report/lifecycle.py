"""Lifecycle reports: the terminal table and Markdown of a lifecycle result set, and the texts every
lifecycle report shares (JUnit XML: :mod:`lab.report.lifecycle_junit`; HTML: :mod:`lab.report.lifecycle_html`).

Every report states the judge's recall limit (a paraphrased value is not recognised) and what
NOT TESTED means. Each position of a row is its own line, next to the other (``row@live``, ``row@restarted``),
never merged. Erasure at rest is a storage finding beside the checks, never in the gate: a
column and a paragraph per row.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from lab.lifecycle.judgement import CHECKS
from lab.lifecycle.results import row_key
from lab.report.compact import Code, Codes, compact_table, print_fitting
from lab.report.inert import inert

_STYLE = {"PASS": "bold green", "FAIL": "bold red", "NOT TESTED": "dim", "INCONCLUSIVE": "yellow", "error": "magenta"}
NOT_TESTED_NOTE = ("NOT TESTED: the check had no opportunity in the pack, the SUT cannot express it "
                   "(e.g. no TTL), or the judge could not decide a value (it reached the agent but not its answer, "
                   "it folds together with a current value, or the served text holds an encoding the judge cannot "
                   "undo); it is never counted as a pass.")
#: What every term of a lifecycle report means (docs/lifecycle.md), shown under every report.
LEGEND: tuple[tuple[str, str], ...] = (
    ("scope_leakage (P1)", "another user's or tenant's value was served"),
    ("deletion_residue (P1)", "a deleted value was served"),
    ("stale_reuse (P2)", "a superseded value was served after a correction"),
    ("expiry_leak (P2)", "a value was served after its TTL ran out"),
    ("missing_current_fact (P2)", "a fact the scenario requires (must_use) was not served"),
    ("P1 / P2", "severity: P1 privacy and security, P2 reliability; the gate fails on P1 and P2 by default "
                "(--fail-on p2), on P1 only with --fail-on p1"),
    ("a/b", "violations / opportunities: one opportunity per query that had a value of the check's kind in "
            "reach (per required fact for missing_current_fact); a finding is one query and check"),
    ("NOT TESTED", "no opportunity, a check the SUT cannot express, or a value the judge could not decide (it "
                   "reached the agent but not its answer, it folds together with a current value, or the served "
                   "text holds an encoding the judge cannot undo): never a pass"),
    ("INCONCLUSIVE", "nothing the gate rests on was tested, a value the judge could not decide, or the SUT served "
                     "no fact beyond the prompt (utility Δ ≤ 0): never a pass, exit 1"),
    ("current facts", "required facts whose current value was served"),
    ("utility Δ", "current facts served minus what a no-memory agent has (the prompt alone): a store that "
                  "remembers nothing cannot pass; +1.00 with a FAIL means it remembers, and also serves what it "
                  "should not"),
    ("erasure at rest", "a raw byte scan of the SUT's volumes after each delete: a storage finding beside the "
                        "gate, never in it; not found is not proven gone"),
    ("live / restarted", "one SUT process for the run, or the SUT and its services restarted after every "
                         "mutation: each its own row, never merged"),
)


def rate_text(check: dict[str, Any]) -> str:
    """``100% (12/12)``-style text of a check's rate with its counts (and how many were not tested)."""
    untested = f" · {check['not_tested']} n/t" if check.get("not_tested") else ""
    if not check.get("opportunities"):
        return f"–{untested}"
    return (f"{check['violations'] / check['opportunities']:.0%} ({check['violations']}/{check['opportunities']})"
            f"{untested}")


def gate_text(row: dict[str, Any]) -> str:
    """The gate in one line: fail_on, status, the blocking findings and checks."""
    gate = row["gate"]
    text = f"fail on {gate.get('fail_on', '?')}: {row['status']}"
    if gate.get("blocking"):
        text += f", {gate.get('blocking_findings', '?')} blocking finding(s) in {', '.join(gate['blocking'])}"
    return text


def retrieval_text(row: dict[str, Any]) -> str:
    """What reached the agent, beside the gate: each check's count over the queries that said, or ''."""
    r = row.get("retrieval")
    if not r:
        return ""
    parts = [f"{name} {c['violations']}/{c['opportunities']}" for name, c in r["checks"].items() if c["opportunities"]]
    return (f"what reached the agent (retrieved; beside the gate, never in it), over {r['queries']} queries: "
            + ", ".join(parts))


def accuracy_text(acc: dict[str, Any]) -> str:
    """Current-fact accuracy with its counts."""
    return "–" if not acc.get("opportunities") else f"{acc['hits'] / acc['opportunities']:.0%} ({acc['hits']}/{acc['opportunities']})"


def delta_text(delta: Any) -> str:
    """The memory utility delta, signed."""
    return "–" if delta is None else f"{delta:+.2f}"


def erasure_text(row: dict[str, Any]) -> str:
    """The erasure-at-rest counts of a row in a few words (``–`` with no delete sent)."""
    e = row.get("erasure_at_rest") or {}
    if not e.get("deletes"):
        return f"– ({e['not_applied']} deletes not sent)" if e.get("not_applied") else "–"
    if e.get("not_measured") == e["deletes"]:
        return f"not measured ({e['deletes']} deletes)"
    parts = [f"{e['present']}/{e['scanned']} present"]
    parts += [f"{e[k]} {k.replace('_', ' ')}" for k in ("not_attributable", "not_measured") if e.get(k)]
    return ", ".join(parts)


def restart_text(row: dict[str, Any]) -> str:
    """``N restarts, median X s`` (empty for a live row)."""
    r = row.get("restarts") or {}
    return f"{r['count']} restarts, median {r['median_seconds']:.3f} s" if r.get("count") else ""


def hit_text(hit: dict[str, Any]) -> str:
    """One hit: ``volume/file @ offset (encoding)``."""
    return f"{hit['volume']}/{hit['file']} @ {hit['offset']} ({hit['encoding']})"


def erasure_counts(e: dict[str, Any]) -> str:
    """Every count of a row's erasure-at-rest summary, in one sentence."""
    return (f"{e['deletes']} deletes: {e['present']} present, {e['not_found']} not found, {e['not_attributable']} "
            f"not attributable, {e['not_measured']} not measured, {e['not_applied']} not sent; {e['files']} files "
            f"({e['bytes']} bytes) read over {e['scanned']} scans"
            + (f", {e['skipped_files']} files skipped (over 256 MiB)" if e.get("skipped_files") else "")
            + (f", {e['unreadable_files']} files unreadable" if e.get("unreadable_files") else ""))


def erasure_lines(row: dict[str, Any], limit: int = 50) -> list[str]:
    """What the erasure scans found, in plain lines: the counts, each present value with its hits."""
    e = row.get("erasure_at_rest") or {}
    if not e:
        return []
    lines = [f"erasure at rest (raw byte scan of the volumes after each delete; not part of the gate): "
             f"{erasure_counts(e)}"]
    if e.get("not_measured"):
        lines.append("not measured: the adapter exposes no volumes")
    for item in e.get("evidence", [])[:limit]:
        shown = ", ".join(hit_text(h) for h in item["hits"][:5])
        more = f" (+{item['hit_count'] - 5} more)" if item["hit_count"] > 5 else ""
        lines.append(f"present: {item['value']!r} (key {item['key']}) after {item['scenario']} seed {item['seed']} "
                     f"step {item['step']}: {shown}{more}")
    if len(e.get("evidence", [])) > limit:
        lines.append(f"… {len(e['evidence']) - limit} more in rows/{row_key(row)}.json")
    lines += [f"inconsistent scan: {p['scenario']} seed {p['seed']} step {p['step']}: {p['message']}"
              for p in e.get("problems", [])]
    if e.get("not_found"):
        lines.append(f"not found means {e['note']}")
    return lines


def values_text(finding: dict[str, Any]) -> str:
    """The values that are a finding's evidence: ``'v' (label, key k)``, joined."""
    return ", ".join(f"{v['value']!r} ({v['label']}, key {v['key']})" for v in finding["values"]) or "-"


def check_names(rows: list[dict[str, Any]]) -> list[str]:
    """The checks the rows carry, P1 first, in the order docs/lifecycle.md lists them."""
    present = set(rows[0]["checks"]) if rows else set()
    return [name for name in CHECKS if name in present] + sorted(present - set(CHECKS))


def table(rows: list[dict[str, Any]]) -> Table:
    """Rows x checks: status and rate with counts, accuracy, utility delta, the gate."""
    out = Table(title="memlab lifecycle gate", header_style="bold", title_justify="left")
    out.add_column("row", no_wrap=True)
    names = check_names(rows)
    for name in names:
        out.add_column(f"{name}\n({rows[0]['checks'][name]['severity']})", justify="center")
    for col in ("current\nfacts", "utility\nΔ", "gate"):
        out.add_column(col, justify="center")
    out.add_column("erasure at rest", justify="center", max_width=24)
    for row in rows:
        cells = []
        for name in names:
            check = row["checks"][name]
            cells.append(f"[{_STYLE.get(check['status'], '')}]{check['status']}[/]\n{rate_text(check)}")
        status = row["status"]
        cells += [accuracy_text(row["current_fact_accuracy"]), delta_text(row["memory_utility_delta"]),
                  f"[{_STYLE.get(status, '')}]{status}[/]", erasure_text(row)]
        out.add_row(row_key(row), *cells)
    return out


STATUS_CODES = Codes([Code("PASS", "P", "passed", "bold green"), Code("FAIL", "F", "failed", "bold red"),
                      Code("NOT TESTED", "n", "not tested (never a pass)", "dim")])
_ABBREVIATED = {"scope_leakage": "SL", "deletion_residue": "DR", "stale_reuse": "SR", "expiry_leak": "EL",
                "missing_current_fact": "MF"}


def compact(rows: list[dict[str, Any]]) -> Table:
    """The table in about 60 columns besides the row names: one code per check, in the checks' order
    (``SL DR SR EL MF``), then current facts, utility, the gate; row names wrap."""
    names = check_names(rows)
    out = compact_table("memlab lifecycle gate")
    out.add_column("row", overflow="fold")
    out.add_column(" ".join(_ABBREVIATED.get(n, n) for n in names))
    for col in ("facts", "Δ", "gate"):
        out.add_column(col)
    for row in rows:
        codes = "  ".join(STATUS_CODES.styled(row["checks"][n]["status"]) for n in names)
        acc = row["current_fact_accuracy"]
        out.add_row(inert(row_key(row)), codes, f"{acc['hits']}/{acc['opportunities']}",
                    delta_text(row["memory_utility_delta"]), f"[{_STYLE.get(row['status'], '')}]{row['status']}[/]")
    return out


def compact_key(rows: list[dict[str, Any]]) -> list[str]:
    """The lines under the compact table: the codes and the checks' abbreviations."""
    names = check_names(rows)
    return [f"[dim]{STATUS_CODES.key()}[/]",
            "[dim]" + escape(" · ".join(f"{_ABBREVIATED.get(n, n)} {n} ({rows[0]['checks'][n]['severity']})"
                                        for n in names)) + "; the counts are in report.md[/]"]


def print_report(rows: list[dict[str, Any]], run: dict[str, Any], console: Console) -> None:
    """The table (compact where the full one does not fit), then per row what blocks, what is unstable,
    the errors, and the judge's limits."""
    if rows:
        print_fitting(console, table(rows), compact(rows), compact_key(rows))
    for row in rows:
        gate, key = row["gate"], row_key(row)
        key = inert(key, markup=False)
        console.print(f"  {key}: {gate_text(row)}", markup=False, highlight=False)
        for reason in gate.get("reasons", []):
            console.print(f"  {key}: {inert(reason, markup=False)}", markup=False, highlight=False)
        if retrieval_text(row):
            console.print(f"  {key}: {retrieval_text(row)}", markup=False, highlight=False)
        if gate.get("unstable"):
            console.print(f"  {escape(key)}: [yellow]unstable across seeds[/]: {', '.join(gate['unstable'])}")
        for err in row["errors"][:5]:
            console.print(f"  {escape(key)}: [magenta]harness error[/] {inert(err['scenario'])} seed {err['seed']}: "
                          f"{inert(err['message'])}")
        if len(row["errors"]) > 5:
            console.print(f"  {key}: … {len(row['errors']) - 5} more harness errors (rows/{key}.json)", markup=False)
        for line in ([restart_text(row)] if restart_text(row) else []) + erasure_lines(row, limit=3):
            console.print(f"  {key}: {inert(line, markup=False)}", markup=False, highlight=False)
    console.print(f"[dim]{escape(rows[0]['judge_limits']) if rows else ''}\n{NOT_TESTED_NOTE}[/]")
    console.print("[dim]" + escape("; ".join(f"{term}: {meaning}" for term, meaning in LEGEND[:5])) +
                  " (docs/lifecycle.md; report.md and report.html explain every term)[/]")


def markdown(rows: list[dict[str, Any]], run: dict[str, Any]) -> str:
    """A Markdown report: the table, each row's findings (query, served, the value that drove it)."""
    names = check_names(rows)
    lines = ["# memlab lifecycle gate", "",
             f"Run {run.get('run_id')} · {run.get('scenarios')} scenarios × {run.get('seeds')} seed(s) · "
             f"fail on {run.get('fail_on')} · runtime {run.get('runtime')} · lab {(run.get('lab') or {}).get('commit')}",
             "", "| row | " + " | ".join(names) + " | current facts | utility Δ | gate | erasure at rest |",
             "|---|" + "---|" * (len(names) + 4)]
    for row in rows:
        cells = [f"{row['checks'][n]['status']} {rate_text(row['checks'][n])}" for n in names]
        lines.append(f"| {row_key(row)} | " + " | ".join(cells) + f" | {accuracy_text(row['current_fact_accuracy'])} | "
                     f"{delta_text(row['memory_utility_delta'])} | **{row['status']}** | {erasure_text(row)} |")
    lines += ["", "How to read this report:", ""] + [f"- **{term}**: {meaning}" for term, meaning in LEGEND]
    for row in rows:
        lines += ["", f"## {row_key(row)}", "", f"- gate: {gate_text(row)}"]
        lines += [f"- {reason}" for reason in row["gate"].get("reasons", [])]
        lines += [f"- {retrieval_text(row)}"] if retrieval_text(row) else []
        lines += [f"- {restart_text(row)} (the SUT and its services stopped and started after every mutation)"
                  ] if restart_text(row) else []
        lines += [f"- {_one_line(line, 400)}" for line in erasure_lines(row)]
        lines += [f"- harness error: {e['scenario']} seed {e['seed']}: {e['message']}" for e in row["errors"]]
        for f in row["findings"][:50]:
            lines.append(f"- **{f['check']}** ({f['severity']}) in `{f['scenario']}` seed {f['seed']} step {f['step']}: "
                         f"asked “{f['prompt']}”, the served answer used {_one_line(values_text(f), 400)} "
                         f"— served: `{_one_line(f['served'])}`")
        if len(row["findings"]) > 50:
            lines.append(f"- … {len(row['findings']) - 50} more findings in rows/{row_key(row)}.json")
        untested = row.get("not_tested", [])
        for f in untested[:20]:
            lines.append(f"- NOT TESTED **{f['check']}** in `{f['scenario']}` seed {f['seed']} step {f['step']}: "
                         f"{f['reason']}" + (f" ({_one_line(values_text(f), 200)})" if f["values"] else ""))
        if len(untested) > 20:
            lines.append(f"- … {len(untested) - 20} more NOT TESTED in rows/{row_key(row)}.json")
        if not row["findings"] and not row["errors"]:
            lines.append("No finding.")
    lines += ["", rows[0]["judge_limits"] if rows else "", "", NOT_TESTED_NOTE, ""]
    return "\n".join(lines)


def _one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(str(text).split()).replace("`", "'")
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"
