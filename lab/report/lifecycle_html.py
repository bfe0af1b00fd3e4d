"""The lifecycle gate as one static HTML page: the checks table (each position of a row its own
line, side by side), then per row the restarts, erasure at rest (every hit: volume, file, byte
offset, encoding and the bytes around it) and every finding with the query, what was served
(the value that drove it marked) and the value's label.

No script and no external asset, as the at-rest report: the page works from a file, a CI
artifact or a mail attachment.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from lab.lifecycle.results import row_key
from lab.report.lifecycle import (LEGEND, NOT_TESTED_NOTE, accuracy_text, check_names, delta_text, erasure_counts,
                                  erasure_text, gate_text, rate_text, restart_text, retrieval_text)

_COLOURS = {"PASS": "#116329", "FAIL": "#cf222e", "NOT TESTED": "#8c959f", "INCONCLUSIVE": "#bf8700",
            "error": "#8250df"}
#: The page's style, every rule under ``.lc`` so the per-SUT page can hold it beside the at-rest report's.
CSS = """
.lc{font:14px/1.45 system-ui,sans-serif;color:#1f2328}.lc h1{font-size:20px}.lc h2{font-size:16px;margin-top:28px}
.lc table{border-collapse:separate;border-spacing:3px}.lc th{font-weight:600;padding:2px 8px;text-align:left}
.lc td{padding:6px 8px;border-radius:4px}.lc td.s{color:#fff;font-weight:600;text-align:center}
.lc .f{border:1px solid #d0d7de;border-radius:6px;padding:8px 12px;margin:8px 0}.lc .f h3{margin:0 0 4px;font-size:14px}
.lc pre{background:#f6f8fa;padding:8px;border-radius:4px;white-space:pre-wrap;word-break:break-word;margin:4px 0}
.lc mark{background:#ffd8d3;color:#1f2328;padding:0 2px;border-radius:2px}.lc .muted{color:#57606a}
.lc dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px}.lc dt{font-weight:600}.lc dd{margin:0}
"""


def render(rows: list[dict[str, Any]], run: dict[str, Any]) -> str:
    """The whole page."""
    facts = (f"run {escape(str(run.get('run_id')))} · {run.get('scenarios')} scenarios × {run.get('seeds')} seed(s)"
             f" · fail on {escape(str(run.get('fail_on')))} · runtime {escape(str(run.get('runtime')))}")
    return (f"<!doctype html><html lang=en><meta charset=utf-8><title>memlab lifecycle gate</title>"
            f"<style>{CSS}</style><body class=lc style='margin:24px'><h1>memlab lifecycle gate</h1>"
            f"<p class=muted>{facts}</p>{checks_table(rows)}{''.join(findings(row) for row in rows)}</body></html>\n")


def checks_table(rows: list[dict[str, Any]]) -> str:
    """Each (row, position) a line: every check with its rate, current facts, utility, gate, erasure at rest;
    then the judge's limits and what NOT TESTED means."""
    names = check_names(rows)
    head = "".join(f"<th>{escape(n)} ({escape(rows[0]['checks'][n]['severity'])})</th>" for n in names)
    body = "".join(_row(row, names) for row in rows)
    limits = escape(rows[0]["judge_limits"]) if rows else ""
    legend = "".join(f"<dt>{escape(term)}</dt><dd>{escape(meaning)}</dd>" for term, meaning in LEGEND)
    return (f"<table><tr><th>row</th>{head}<th>current facts</th><th>utility Δ</th><th>gate</th>"
            f"<th>erasure at rest</th></tr>{body}</table><p class=muted>{limits}<br>{escape(NOT_TESTED_NOTE)}</p>"
            f"<details class=legend><summary>How to read this table</summary><dl>{legend}</dl></details>")


def status_cell(status: str, text: str = "", href: str | None = None, title: str | None = None) -> str:
    """A coloured table cell of a gate or check status, with a small second line; ``href`` links the
    status, ``title`` is its tooltip."""
    colour = _COLOURS.get(status, "#57606a")
    extra = f"<br><small>{escape(text)}</small>" if text else ""
    shown = f'<a style="color:#fff" href="{escape(href)}">{escape(status)}</a>' if href else escape(status)
    tip = f' title="{escape(title)}"' if title else ""
    return f'<td class=s style="background:{colour}"{tip}>{shown}{extra}</td>'


def _row(row: dict[str, Any], names: list[str]) -> str:
    cells = "".join(status_cell(row["checks"][n]["status"], rate_text(row["checks"][n])) for n in names)
    key = escape(row_key(row))
    return (f"<tr><th><a href='#r-{key}'>{key}</a></th>{cells}"
            f"<td>{escape(accuracy_text(row['current_fact_accuracy']))}</td>"
            f"<td>{escape(delta_text(row['memory_utility_delta']))}</td>{status_cell(row['status'])}"
            f"<td>{escape(erasure_text(row))}</td></tr>")


def _erasure(row: dict[str, Any]) -> str:
    """Restarts, then erasure at rest: the counts, each present value with every hit, the caveat."""
    e = row.get("erasure_at_rest") or {}
    parts = [f"<p>{escape(restart_text(row))}</p>"] if restart_text(row) else []
    if not e:
        return "".join(parts)
    parts.append(f"<p><b>erasure at rest</b> (a raw byte scan of the volumes after each delete; a storage "
                 f"finding, not part of the gate): {escape(erasure_counts(e))}</p>")
    for item in e.get("evidence", []):
        hits = "".join(f"<tr><td>{escape(h['volume'])}</td><td>{escape(h['file'])}</td><td>{h['offset']}</td>"
                       f"<td>{escape(h['encoding'])}</td><td><code>{escape(h.get('context', ''))}</code></td></tr>"
                       for h in item["hits"])
        parts.append(f"<div class=f><h3>still on disk: <mark>{escape(item['value'])}</mark> (key "
                     f"{escape(str(item['key']))}) · {escape(item['scenario'])} · seed {item['seed']} · step "
                     f"{item['step']}</h3><div class=muted>scanned {escape(str(item.get('when')))}; "
                     f"{item['hit_count']} hit(s)</div><table><tr><th>volume</th><th>file</th><th>offset</th>"
                     f"<th>encoding</th><th>bytes around</th></tr>{hits}</table></div>")
    parts += [f"<p><b>inconsistent scan</b> {escape(p['scenario'])} seed {p['seed']} step {p['step']}: "
              f"{escape(p['message'])}</p>" for p in e.get("problems", [])]
    if e.get("not_found"):
        parts.append(f"<p class=muted>not found means {escape(e['note'])}</p>")
    return "".join(parts)


def findings(row: dict[str, Any]) -> str:
    """A (row, position)'s heading (anchor ``r-<row@position>``), restarts, erasure at rest, gate reasons,
    harness errors and every finding with what was served."""
    key = escape(row_key(row))
    parts = [f"<h2 id='r-{key}'>{key}: {escape(row['status'])}</h2>", f"<p>gate: {escape(gate_text(row))}</p>",
             _erasure(row)]
    parts += [f"<p>{escape(r)}</p>" for r in row["gate"].get("reasons", [])]
    parts += [f"<p class=muted>{escape(retrieval_text(row))}</p>"] if retrieval_text(row) else []
    parts += [f"<p><b>harness error</b> {escape(e['scenario'])} seed {e['seed']}: {escape(e['message'])}</p>"
              for e in row["errors"]]
    for f in row["findings"]:
        parts.append(
            f"<div class=f><h3>{escape(f['check'])} ({escape(f['severity'])}) · {escape(f['scenario'])} · "
            f"seed {f['seed']} · step {f['step']}</h3>"
            f"<div>query <b>“{escape(str(f['prompt']))}”</b> as {escape(_scope(f['scope']))}</div>"
            + "".join(f"<div>{'drove the answer' if f['check'] != 'missing_current_fact' else 'not served'}: "
                      f"<mark>{escape(v['value'])}</mark> (key {escape(v['key'])}, {escape(v['label'])}, "
                      f"written in {escape(_scope(v['written_in']))})</div>" for v in f["values"])
            + f"<div class=muted>served</div><pre>{_marked(f['served'], [v['value'] for v in f['values']])}</pre></div>")
    for f in row.get("not_tested", [])[:100]:
        shown = ", ".join(v["value"] for v in f["values"])
        parts.append(f"<div class=f><h3>NOT TESTED {escape(f['check'])} · {escape(f['scenario'])} · seed {f['seed']} · "
                     f"step {f['step']}</h3><div class=muted>{escape(f['reason'])}"
                     f"{' — ' + escape(shown) if shown else ''}</div></div>")
    if not row["findings"] and not row["errors"]:
        parts.append("<p>No finding.</p>")
    return "".join(parts)


def _scope(scope: Any) -> str:
    if not isinstance(scope, dict):
        return str(scope)
    return f"{scope.get('tenant_id')}/{scope.get('user_id')}"


def _marked(served: str, values: list[str]) -> str:
    """The served text, escaped, with each case-insensitive occurrence of the values marked."""
    if not values:
        return escape(str(served))
    pattern = re.compile("|".join(re.escape(escape(v)) for v in sorted(values, key=len, reverse=True)), re.IGNORECASE)
    return pattern.sub(lambda m: f"<mark>{m.group(0)}</mark>", escape(str(served)))
