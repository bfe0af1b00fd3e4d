"""One static, self-contained HTML page a security engineer reads without docs/method.md open.

The page: the run's facts; the verdict matrix as a heat map, each case column headed by its
name and what the edit does; a legend of verdicts, detection points, observation classes,
levels (what each requires), controls, the score and the cases; a section per row with its
configuration, notes, controls and score; and, for every cell, a panel of its evidence
(:mod:`lab.report.html_evidence`). Group rates are shown only for groups of more than one
case (the rate of a one-case group repeats its cell).

No script, no external asset: style inline, every panel pre-rendered and shown by CSS
``:target`` (fixed to the bottom of the window, so the matrix stays in view) when its cell (a
link to ``#d-<row>-<case>``) is clicked; the page works from a file, a CI artifact or a mail
attachment alike. Given the result set's folder, the panels also show the records before and
after each edit, read from the observation files.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from lab.cases import CASE_IDS, CONTROLS, GROUPS
from lab.judge.row import RowEvidence
from lab.report import site_compose
from lab.report.inert import inert
from lab.report.common import (CASE_SHORT, CLASSES, POINTS, VERDICTS, case_c3, case_edit, case_title,
                               cell_label, levels, metric_text, rate_groups, row_key, run_facts)
from lab.report.html_filters import filter_bar, filter_css, row_classes
from lab.report.html_evidence import (COLOURS, c3_block, chip, code, flat, kv, none, observation, served_block,
                                     signals_block, text, timings_text, variants_block)
from lab.resultset.run_record import RunRecord

if TYPE_CHECKING:
    from lab.judge.row import AtRestRow, RowCell

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1f2328;background:#fff}
h1{font-size:20px;margin:0 0 6px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d0d7de}
h3{font-size:15px;margin:0 0 6px}h4{font-size:13px;margin:12px 0 4px;color:#57606a;text-transform:uppercase;
letter-spacing:.03em}code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.facts{color:#57606a;margin:0 0 10px;padding:0;list-style:none}.facts li{display:inline;margin-right:18px}
.lead{max-width:1100px;margin:0 0 12px}.muted{color:#57606a}.ok{color:#116329;margin:2px 0}
.bad{color:#cf222e;margin:2px 0}
table.m{border-collapse:separate;border-spacing:3px}table.m th{padding:2px 4px;text-align:center}
table.m th.case{width:88px;vertical-align:bottom;font-weight:400;font-size:11px;line-height:1.25}
table.m th.case b{display:block;font-size:14px}table.m th.case i{display:block;font-style:normal;
color:#57606a}table.m thead tr:first-child th{color:#57606a;font-weight:400;border-bottom:1px solid #d0d7de}
table.m th.r{text-align:left;vertical-align:bottom}td.rk{white-space:nowrap;padding-right:4px}
td.rk a{color:#1f2328;font-weight:600}td{padding:0}
a.cell{display:block;padding:6px 4px;text-align:center;color:#fff;font-weight:600;text-decoration:none;
border-radius:4px;outline-offset:2px}a.cell:hover,a.cell:focus{outline:2px solid #0969da}
span.ctl,span.num{display:block;min-width:42px;padding:6px 4px;text-align:center;border-radius:4px;color:#fff}
.chip{display:inline-block;min-width:34px;padding:0 6px;border-radius:3px;color:#fff;font-weight:600;
text-align:center}
.legend{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));gap:4px 36px}
table.kv,table.recs,table.lg{border-collapse:collapse;margin:2px 0 6px}table.kv th{text-align:left;
font-weight:600;padding:2px 12px 2px 0;vertical-align:top;white-space:nowrap}table.kv td{padding:2px 0;
vertical-align:top}table.recs th,table.recs td,table.lg th,table.lg td{border:1px solid #d0d7de;padding:3px 6px;
text-align:left;vertical-align:top}table.recs th,table.lg th{background:#f6f8fa}table.recs{font-size:12px}
mark{background:#fff8c5;outline:1px solid #d4a72c}
section.row{border:1px solid #d0d7de;border-radius:6px;padding:10px 14px;margin:10px 0}
section.row:target{border-color:#0969da;box-shadow:0 0 0 2px #0969da33}.notes{max-width:1100px}
.two{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:0 28px}
.detail{display:none;position:fixed;left:0;right:0;bottom:0;max-height:60vh;overflow:auto;background:#fff;
border-top:3px solid #0969da;padding:10px 24px;box-shadow:0 -4px 16px #0002}
.detail:target{display:block}body:has(.detail:target){padding-bottom:62vh}
pre{background:#f6f8fa;padding:8px;border-radius:4px;overflow-x:auto;white-space:pre-wrap;word-break:break-word;
margin:2px 0}ol.served{margin:2px 0;padding-left:22px}.close{float:right}
"""


def _rate_colour(value: Any) -> str:
    return "#8c959f" if value is None else f"hsl({round(float(value) * 120)},65%,36%)"


def _num(value: Any, colour: str | None = None) -> str:
    shown = value if isinstance(value, str) else metric_text(value)
    return f'<td><span class="num" style="background:{colour or _rate_colour(value)}">{escape(shown)}</span></td>'


def matrix(rows: list[AtRestRow], pages: list[tuple[str, int]] | None = None,
           extra: tuple[list[str], list[list[str]]] | None = None) -> str:
    """The verdict matrix as a heat map. ``pages`` (per row: the page holding it and its index there)
    makes the row names and cells link to another page; ``extra`` (header cells, then per row its
    ``<td>`` cells) adds columns after the scores."""
    pages = pages or [("", i) for i in range(len(rows))]
    extra_head, extra_cells = extra or ([], [[] for _ in rows])
    groups = rate_groups()
    head = "".join(f'<th class="case" title="{escape(case_edit(c))}"><b>{c}</b>{escape(case_title(c)[len(c) + 1:])}'
                   f"<i>{escape(CASE_SHORT.get(c, ''))}</i></th>" for c in CASE_IDS)
    spans = (f'<tr><th></th><th colspan="{len(CASE_IDS)}">cases: the edit made to the stored memory, the SUT '
             f'stopped</th><th colspan="2">controls</th><th colspan="2">score</th>'
             + (f'<th colspan="{len(groups)}">group rates</th>' if groups else "") + "</tr>")
    rates = "".join(f'<th title="the metric over {escape(", ".join(GROUPS[g]))}">{escape(g)}</th>' for g in groups)
    out = [f'<table class="m" id="matrix"><thead>{spans}<tr><th class="r">row @ detection point</th>{head}'
           f"<th>C1</th><th>C2</th><th>metric</th><th>level</th>{rates}{''.join(extra_head)}</tr></thead><tbody>"]
    for i, row in enumerate(rows):
        page, j = pages[i]
        tds = [f'<td class="rk"><a href="{page}#r-{j}" title="{escape(str(row.title or ""))}">'
               f"{escape(row_key(row))}</a></td>"]
        for cid in CASE_IDS:
            cell = row.cell(cid)
            label = cell_label(cell)
            accepted = " acc" if cell.verdict == "ACCEPTED" else ""
            tds.append(f'<td><a class="cell{accepted}" id="c-{i}-{cid}" href="{page}#d-{j}-{cid}" '
                       f'style="background:{COLOURS.get(label, COLOURS["?"])}" '
                       f'title="{escape(case_title(cid))}: {escape(str(cell.reason or ""))}">'
                       f"{escape(label)}</a></td>")
        for c in ("C1", "C2"):
            ok = row.controls[c].ok
            tds.append(f'<td><span class="ctl" style="background:{"#116329" if ok else "#cf222e"}" '
                       f'title="{escape(str(row.controls[c].reason))}">{"ok" if ok else "FAIL"}</span></td>')
        tds.append(_num(row.metric))
        tds.append(_num(str(row.level or "—"), "#24292f"))
        tds += [_num((row.groups or {}).get(g)) for g in groups]
        out.append(f'<tr class="{row_classes(row)}">' + "".join(tds + extra_cells[i]) + "</tr>")
    return "".join(out) + "</tbody></table>"


def _table(header: list[str], lines: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    return f'<table class="lg"><tr>{head}</tr>' + "".join(
        "<tr>" + "".join(f"<td>{c}</td>" for c in line) + "</tr>" for line in lines) + "</table>"


def legend() -> str:
    """How to read the matrix: verdicts, detection points, classes, levels, controls, score, cases."""
    verdicts = _table(["", "verdict", "what the SUT did after the restart", "counts"],
                      [[chip(s), escape(n), escape(w), escape(c)] for s, n, w, c in VERDICTS])
    points = _table(["point", "where the edit is found"],
                    [[f"<b>{escape(k)}</b>", escape(v)] for k, v in POINTS.items()])
    classes = _table(["class", "what the verdict rests on"],
                     [[f"<b>{escape(k)}</b>", escape(v)] for k, v in CLASSES.items()])
    lv = _table(["level", "name", "requires (cumulative)"],
                [[f"<b>{escape(a)}</b>", escape(b), escape(c)] for a, b, c in levels()])
    controls = _table(["control", "must hold"], [[f"<b>{escape(k)}</b>", escape(v)] for k, v in CONTROLS.items()])
    cases = _table(["case", "the edit", "C3 requires (checked before the restart)"],
                   [[f"<b>{escape(case_title(c))}</b>", escape(case_edit(c)), escape(case_c3(c))] for c in CASE_IDS])
    score = ("<p>metric = (REJ + REP + 0.5 × REP·a) / N, where N counts the REJ, REP, REP·a and ACC cells; ERR and "
             "n/a are left out. A group rate is the same formula over the group's cases "
             f"({escape(', '.join(rate_groups()))}). If C1 or C2 fails the row is not evaluable: no metric, "
             "no level. No threshold is set by the method.</p>")
    return (f'<h2 id="legend">How to read it</h2><div class="legend">'
            f"<div><h4>Verdicts</h4>{verdicts}<h4>Detection points</h4>{points}"
            f"<h4>Observation classes</h4>{classes}</div>"
            f"<div><h4>Levels (each case REJECTED on the read path)</h4>{lv}<h4>Controls</h4>{controls}"
            f"<h4>Score</h4>{score}</div></div><h4>Cases</h4>{cases}")


def _volumes(volumes: Any) -> str:
    if not isinstance(volumes, dict):
        return escape(flat(volumes))
    return "; ".join(f"<code>{escape(str(k))}</code> "
                     + ("held by the adversary" if (v or {}).get("adversary") else "off the store (not held)")
                     for k, v in volumes.items())


def row_section(i: int, row: AtRestRow) -> str:
    """A row's configuration, notes, controls, score and cells (anchor ``r-<i>``)."""
    sut, rt = row.sut or {}, row.runtime
    libraries = ((sut.get("reported") or {}).get("libraries")) or {}
    facts = [("SUT", escape(f"{sut.get('package')} {sut.get('version')}"
                            + (f" (commit {sut['commit']})" if sut.get("commit") else ""))),
             ("links against", escape(flat(libraries)) if libraries else none("not reported")),
             ("configuration", kv(row.configuration or {})),
             ("volumes", _volumes(row.volumes)),
             ("store", escape(flat(row.store or {}))),
             ("capabilities", escape(flat(row.capabilities or {}))),
             ("DUT boundary", escape(str(row.dut_boundary or "—"))),
             ("position", escape(f"{row.position}; SUT stopped during edits: {row.sut_stopped_during_edits}")),
             ("documented signals", escape(flat(row.signals_documented or "none"))),
             ("runtime", escape(f"{rt and rt.runtime}, Python {rt and rt.python}; packages "
                                + flat((rt and rt.packages) or {})))]
    controls = [(c, ("ok: " if row.controls[c].ok else "<b>FAIL</b>: ") + escape(str(row.controls[c].reason or "")))
                for c in ("C1", "C2")]
    groups = row.groups or {}
    score = escape(f"metric {metric_text(row.metric)}, level {row.level or '—'}; "
                   + ", ".join(f"{g} {metric_text(groups.get(g))}" for g in rate_groups() if g in groups)
                   + (f"; counts {flat(row.counts)}" if row.counts else ""))
    if not row.evaluable:
        score = f'<b class="bad">not evaluable: {escape(str(row.not_evaluable_reason))}</b>'
    cells = _table(["case", "verdict", "class", "reason"],
                   [[f'<a href="#d-{i}-{c}">{escape(case_title(c))}</a>', chip(cell_label(row.cell(c))),
                     escape(str(row.cell(c).observation_class or "—")),
                     escape(str(row.cell(c).reason or ""))] for c in CASE_IDS])
    return (f'<section class="row" id="r-{i}"><h3>{escape(row_key(row))}: {escape(str(row.title or ""))}'
            f'</h3><p class="notes">{escape(str(row.notes or ""))}</p><div class="two">'
            f"<div>{kv(facts)}</div><div><h4>Controls and score</h4>{kv(controls + [('score', score)])}"
            f"<h4>Cells</h4>{cells}</div></div></section>")


def _verdict_line(cell: RowCell, label: str) -> str:
    meaning = next(((name, what, counts) for short, name, what, counts in VERDICTS if short == label), None)
    point, klass = cell.detection_point, cell.observation_class
    pairs = [("verdict", f"{chip(label)} <b>{escape(meaning[0])}</b> ({escape(meaning[2])}): {escape(meaning[1])}"
              if meaning else escape(str(cell.verdict)))]
    pairs.append(("detection point", f"<b>{escape(str(point))}</b>: {escape(POINTS.get(str(point), ''))}"))
    if klass:
        pairs.append(("observation class", f"<b>{escape(str(klass))}</b>: {escape(CLASSES.get(str(klass), ''))}"))
    pairs.append(("reason", escape(str(cell.reason or "—"))))
    effect = cell.effect
    if isinstance(effect, dict):
        seen = "yes" if effect.get("visible") else "no"
        pairs.append(("edit visible on the read", f"{seen}: {escape(str(effect.get('detail') or ''))}"))
    return kv(pairs)


def cell_panel(anchor: str, title: str, case_text: str, row: AtRestRow, cid: str, label: str,
               root: Path | None) -> str:
    """The panel a click on a cell opens: verdict, edit, statements, C3, served, signals, audit, timings."""
    cell = row.cell(cid)
    ev = cell.evidence or RowEvidence()
    obs, where = observation(root, row.observations, ev.observation)
    intended = ev.intended
    left = (f"<h4>Verdict</h4>{_verdict_line(cell, label)}"
            f"<h4>Edit intended</h4>{kv(intended) if isinstance(intended, dict) else none()}"
            f"<h4>Statements run, the SUT stopped</h4>{code(ev.statements)}")
    right = f"<h4>C3: did the edit land?</h4>{c3_block(ev.c3, obs)}"
    right += f"<h4>Served after the restart</h4>{served_block(ev)}"
    right += f"<h4>Signals</h4>{signals_block(ev.signals)}"
    audit = cell.audit
    if audit:
        right += f"<h4>Audit call</h4>{kv(audit) if isinstance(audit, dict) else escape(text(audit))}"
    right += variants_block(cell)
    foot = " · ".join(x for x in (timings_text(ev.timings), f"observation: {where}") if x)
    return (f'<section class="detail" id="{anchor}"><a class="close" href="#matrix">close ✕</a>'
            f"<h3>{escape(title)} — {chip(label)}</h3><p class=\"muted\">{escape(case_text)}</p>"
            f'<div class="two"><div>{left}</div><div>{right}</div></div>'
            f'<p class="muted">{escape(foot)}</p></section>')


def render(rows: list[AtRestRow], run: RunRecord, root: Path | None = None,
           compose: Sequence[Any] = ()) -> str:
    """The whole page as HTML text; ``root`` (the result set's folder) adds the records before and after,
    ``compose`` (the set's compose rows) a composition section beside the matrix (lab.report.site_compose).
    A control character a SUT wrote shows as its escape (lab.report.inert): ``cat report.html`` is
    as inert as the page."""
    facts = "".join(f"<li><b>{escape(k)}</b> {escape(v)}</li>" for k, v in run_facts(rows, run))
    panels = "".join(cell_panel(f"d-{i}-{c}", f"{row_key(r)} · {case_title(c)}", f"{c}: {case_edit(c)}", r, c,
                                cell_label(r.cell(c)), root) for i, r in enumerate(rows) for c in CASE_IDS)
    return inert("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            f"<title>memlab result set</title><style>{CSS}{filter_css(rows)}</style></head><body>"
            f"<h1>memlab result set: integrity of agent memory at rest</h1><ul class=\"facts\">{facts}</ul>"
            "<p class=\"lead\">Each row is one SUT configuration at one detection point. Each cell is one edit "
            "made to its stored memory by generic tooling while the SUT was stopped, proven landed (C3), then read "
            "back through the SUT after a restart: did it refuse (REJ), report (REP) or serve the edit as genuine "
            "(ACC)? Click a cell for its evidence, a row name for its configuration; the legend is "
            "<a href=\"#legend\">below</a>.</p>"
            f"<h2>Verdict matrix</h2>{filter_bar(rows)}{matrix(rows)}{site_compose.block(list(compose))}{legend()}"
            "<h2>Rows</h2>" + "".join(row_section(i, r) for i, r in enumerate(rows))
            + f"{panels}</body></html>\n", markup=False, lines=True)
