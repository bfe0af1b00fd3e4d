"""One static, self-contained HTML page: the matrix as a heat map, each cell opening its detail.

No script, no external asset: style inline, every detail pre-rendered and shown by
CSS ``:target`` (a panel fixed to the bottom of the window, so the matrix stays in
view) when its cell (a link to ``#d-<row>-<case>``) is clicked; the page works from a
file, a CI artifact or a mail attachment alike.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from lab.cases import CASE_IDS, GROUPS
from lab.report.common import LEGEND, case_title, cell_label, metric_text, row_key, run_facts

_COLOURS = {"REJ": "#116329", "REP": "#2da44e", "REP·a": "#bf8700", "ACC": "#cf222e", "ERR": "#8250df",
            "n/a": "#8c959f", "?": "#57606a"}

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1f2328;background:#fff}
h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:24px 0 8px}
.facts{color:#57606a;margin:0 0 16px;padding:0;list-style:none}.facts li{display:inline;margin-right:18px}
table.m{border-collapse:separate;border-spacing:3px}table.m th{font-weight:600;padding:2px 6px;text-align:center}
table.m th.r{text-align:left}table.m thead tr:first-child th{color:#57606a;font-weight:400;
border-bottom:1px solid #d0d7de}td.rk a{color:#1f2328;font-weight:600}td{padding:0}
a.cell{display:block;min-width:44px;padding:6px 4px;text-align:center;color:#fff;font-weight:600;
text-decoration:none;border-radius:4px;outline-offset:2px}a.cell:hover,a.cell:focus{outline:2px solid #0969da}
span.ctl,span.num{display:block;min-width:44px;padding:6px 4px;text-align:center;border-radius:4px;color:#fff}
.legend span{display:inline-block;padding:1px 6px;border-radius:3px;color:#fff;margin-right:4px}
.detail{display:none;position:fixed;left:0;right:0;bottom:0;height:52vh;overflow:auto;background:#fff;
border-top:3px solid #0969da;padding:12px 24px;box-shadow:0 -4px 16px #0002}
.detail:target{display:block}body:has(.detail:target){padding-bottom:56vh}
.detail h3{margin:0 0 8px;font-size:15px}.detail dt{font-weight:600;margin-top:8px}.detail dd{margin:2px 0 0 0}
pre{background:#f6f8fa;padding:8px;border-radius:4px;overflow-x:auto;white-space:pre-wrap;word-break:break-word;
margin:2px 0}.close{float:right}.muted{color:#57606a}
"""


def _metric_colour(value: Any) -> str:
    if value is None:
        return "#8c959f"
    return f"hsl({round(float(value) * 120)},65%,36%)"


def _pre(value: Any) -> str:
    if value is None or value == [] or value == {}:
        return '<span class="muted">none</span>'
    text = value if isinstance(value, str) else json.dumps(value, indent=2, sort_keys=True, default=str)
    return f"<pre>{escape(text)}</pre>"


def _served(served: Any) -> str:
    if served is None:
        return '<span class="muted">nothing served (the read was refused or failed)</span>'
    if not served:
        return '<span class="muted">an empty result</span>'
    return "<pre>" + escape("\n".join(map(str, served))) + "</pre>"


def _cell_detail(i: int, row: dict[str, Any], cid: str) -> str:
    cell = row["cells"][cid]
    ev = cell.get("evidence") or {}
    fields = [("verdict", escape(str(cell.get("verdict")))),
              ("detection point · observation class",
               escape(f"{cell.get('detection_point')} · {cell.get('observation_class') or '—'}")),
              ("reason", escape(str(cell.get("reason") or ""))),
              ("edit intended", _pre(ev.get("intended"))),
              ("edit statements", _pre("\n".join(map(str, ev.get("statements") or [])) or None)),
              ("C3 evidence (edit landed)", _pre(ev.get("c3"))),
              ("served after the restart", _served(ev.get("served"))),
              ("refusal", _pre(ev.get("refusal"))),
              ("signals", _pre(ev.get("signals"))),
              ("effect check", _pre(cell.get("effect"))),
              ("audit call", _pre(cell.get("audit"))),
              ("timings (s)", _pre(ev.get("timings"))),
              ("observation", escape(f"{row.get('observations')}/{ev.get('observation')}"))]
    body = "".join(f"<dt>{escape(k)}</dt><dd>{v}</dd>" for k, v in fields)
    return (f'<section class="detail" id="d-{i}-{cid}"><a class="close" href="#matrix">close</a>'
            f"<h3>{escape(row_key(row))} · {escape(case_title(cid))} — {escape(cell_label(cell))}</h3>"
            f"<dl>{body}</dl></section>")


def _row_detail(i: int, row: dict[str, Any]) -> str:
    facts = [("title", escape(str(row.get("title") or ""))), ("SUT", _pre(row.get("sut"))),
             ("configuration", _pre(row.get("configuration"))), ("volumes", _pre(row.get("volumes"))),
             ("store", _pre(row.get("store"))), ("DUT boundary", escape(str(row.get("dut_boundary") or "—"))),
             ("position", escape(f"{row.get('position')}; SUT stopped during edits: "
                                 f"{row.get('sut_stopped_during_edits')}")),
             ("controls", _pre(row.get("controls"))), ("counts", _pre(row.get("counts"))),
             ("group rates", _pre(row.get("groups"))), ("runtime", _pre(row.get("runtime"))),
             ("notes", escape(str(row.get("notes") or "—")))]
    if not row.get("evaluable"):
        facts.insert(1, ("not evaluable", escape(str(row.get("not_evaluable_reason")))))
    body = "".join(f"<dt>{escape(k)}</dt><dd>{v}</dd>" for k, v in facts)
    return (f'<section class="detail" id="r-{i}"><a class="close" href="#matrix">close</a>'
            f"<h3>{escape(row_key(row))}</h3><dl>{body}</dl></section>")


def _matrix(rows: list[dict[str, Any]]) -> str:
    head = "".join(f'<th title="{escape(case_title(c))}">{c}</th>' for c in CASE_IDS)
    groups = "".join(f"<th>{escape(g)}</th>" for g in GROUPS)
    spans = (f'<tr><th></th><th colspan="{len(CASE_IDS)}">cases</th><th colspan="2">controls</th>'
             f'<th colspan="2">score</th><th colspan="{len(GROUPS)}">group rates</th></tr>')
    out = [f'<table class="m" id="matrix"><thead>{spans}<tr><th class="r">row</th>{head}<th>C1</th><th>C2</th>'
           f"<th>metric</th><th>level</th>{groups}</tr></thead><tbody>"]
    for i, row in enumerate(rows):
        tds = [f'<td class="rk"><a href="#r-{i}" title="{escape(str(row.get("title") or ""))}">'
               f"{escape(row_key(row))}</a></td>"]
        for cid in CASE_IDS:
            cell = row["cells"][cid]
            label = cell_label(cell)
            tds.append(f'<td><a class="cell" id="c-{i}-{cid}" href="#d-{i}-{cid}" '
                       f'style="background:{_COLOURS.get(label, _COLOURS["?"])}" '
                       f'title="{escape(case_title(cid))}: {escape(str(cell.get("reason") or ""))}">'
                       f"{escape(label)}</a></td>")
        for c in ("C1", "C2"):
            ok = row["controls"][c]["ok"]
            tds.append(f'<td><span class="ctl" style="background:{"#116329" if ok else "#cf222e"}" '
                       f'title="{escape(str(row["controls"][c].get("reason")))}">{"ok" if ok else "FAIL"}</span></td>')
        rates = [row.get("metric")] + [(row.get("groups") or {}).get(g) for g in GROUPS]
        tds.append(f'<td><span class="num" style="background:{_metric_colour(rates[0])}">'
                   f"{metric_text(rates[0])}</span></td>")
        tds.append(f'<td><span class="num" style="background:#24292f">{escape(str(row.get("level") or "—"))}'
                   "</span></td>")
        tds += [f'<td><span class="num" style="background:{_metric_colour(v)}">{metric_text(v)}</span></td>'
                for v in rates[1:]]
        out.append("<tr>" + "".join(tds) + "</tr>")
    return "".join(out) + "</tbody></table>"


def render(rows: list[dict[str, Any]], run: dict[str, Any]) -> str:
    """The whole page as HTML text."""
    facts = "".join(f"<li><b>{escape(k)}</b> {escape(v)}</li>" for k, v in run_facts(rows, run))
    legend = " ".join(f'<span style="background:{_COLOURS[k]}">{escape(k)}</span>' for k in _COLOURS if k != "?")
    details = "".join(_row_detail(i, r) + "".join(_cell_detail(i, r, c) for c in CASE_IDS)
                      for i, r in enumerate(rows))
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            f"<title>memlab result set</title><style>{_CSS}</style></head><body>"
            f"<h1>memlab result set</h1><ul class=\"facts\">{facts}</ul>"
            f"<h2>Verdict matrix</h2>{_matrix(rows)}"
            f"<p class=\"legend\">{legend}</p><p class=\"muted\">{escape(LEGEND)}. "
            "Click a cell for its edit, C3 evidence, what was served, signals and reason; "
            "click a row name for its setting.</p>"
            f"{details}</body></html>\n")
