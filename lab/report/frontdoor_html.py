"""The front door as one static HTML page: per row its cells coloured by verdict, the level, the
isolation probes, and the evidence of every attack that landed (what the attacker wrote, what was
asked, what was served, the canary marked); the legend. No script and no external asset."""

from __future__ import annotations

import re
from html import escape

from lab.frontdoor.channels import CHANNELS
from lab.frontdoor.fixture_types import FAMILIES
from lab.frontdoor.fixtures import BY_ID
from lab.frontdoor.observations import Role
from lab.frontdoor.outcome import outcome, run_status
from lab.frontdoor.probes import PROBES, SECRETS
from lab.frontdoor.results import FrontdoorResult, IsolationOutcome, PoisoningOutcome
from lab.frontdoor.saved import RunRecord
from lab.frontdoor.verdicts import Leak, Verdict
from lab.report.frontdoor_words import LEGEND, cell_reason, cell_text, cell_word, counts_text, heading, probe_reason, \
    probe_text, provenance_lines, run_facts
from lab.report.inert import inert

COLOURS = {"SERVED": "#cf222e", "LEAKED": "#cf222e", "MARKED": "#bf8700", "KEPT OUT": "#116329",
           "REJECTED": "#116329", "HELD": "#116329", "n/a": "#8c959f", "beyond reach": "#6e7781"}
CSS = """body{font:14px/1.45 system-ui,sans-serif;color:#1f2328;margin:24px}h1{font-size:20px}h2{font-size:16px;
margin-top:28px}table{border-collapse:separate;border-spacing:3px}th{font-weight:600;padding:2px 8px;text-align:left}
td{padding:6px 8px;border-radius:4px}td.s{color:#fff;font-weight:600;text-align:center}.muted{color:#57606a}
.f{border:1px solid #d0d7de;border-radius:6px;padding:8px 12px;margin:8px 0}pre{background:#f6f8fa;padding:8px;
border-radius:4px;white-space:pre-wrap;word-break:break-word;margin:4px 0}mark{background:#ffd8d3;padding:0 2px}
table+table{margin-top:12px}dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px}
dt{font-weight:600}dd{margin:0}"""
ABOUT = {p.name: p.about for p in PROBES}
CANARY = {s.id: s.owner.canary for s in SECRETS}
#: At most this many landed attacks shown per row (every one is in its row file).
SHOWN = 200


def _e(text: object) -> str:
    return escape(inert(text, markup=False))


def _status(word: str, text: str, title: str = "") -> str:
    tip = f' title="{_e(title)}"' if title else ""
    return f'<td class=s style="background:{COLOURS.get(word, "#57606a")}"{tip}>{_e(text)}</td>'


def _marked(text: str, canary: str) -> str:
    """The served text, escaped, each case-insensitive occurrence of the canary marked."""
    shown = _e(text)
    return re.sub(re.escape(_e(canary)), lambda m: f"<mark>{m.group(0)}</mark>", shown, flags=re.I) if canary else shown


def _cells(result: FrontdoorResult) -> str:
    head = "".join(f"<th>{c.value}</th>" for c in CHANNELS)
    body = ""
    for family in FAMILIES:
        cells = {c.channel: c for c in result.cells() if c.family is family}
        if cells:
            tds = "".join(_status("beyond reach" if c.role == "beyond reach" else cell_word(c), cell_text(c),
                                  counts_text(c) + (" · " + cell_reason(result, c) if c.no_verdict else ""))
                          if (c := cells.get(ch)) else "<td>–</td>" for ch in CHANNELS)
            body += f"<tr><th>{family.value}</th>{tds}</tr>"
    return f"<table><tr><th>family</th>{head}</tr>{body}</table>"


def _probes(result: FrontdoorResult) -> str:
    rows = "".join(f"<tr><th>{_e(t.probe)}</th>"
                   f"{_status(probe_text(t).split()[0], probe_text(t), probe_reason(result, t))}"
                   f"<td class=muted>{_e(ABOUT.get(t.probe, ''))}</td></tr>" for t in result.probes())
    return f"<table><tr><th>isolation probe</th><th>result</th><th>what it tries</th></tr>{rows}</table>"


def _landed(o: PoisoningOutcome) -> str:
    fixture = BY_ID.get(o.fixture)
    canary = fixture.canary if fixture else ""
    attack = "".join(f"<pre>{_e(w.text)}</pre>" for w in o.writes if w.role == Role.ATTACK)
    read = next((r for r in o.reads if r.role == Role.VERDICT), None)
    served = "".join(f"<pre>{_marked(s.text, canary)}</pre>"
                     + (f"<div class=muted>marker: {_e(s.marker)}</div>" if s.marker else "")
                     for s in (read.served if read else ()))
    return (f"<div class=f><b>{_e(o.decision.verdict.value)}</b> {_e(o.fixture)} on {o.channel.value}"
            f"<div class=muted>the attacker wrote</div>{attack}"
            f"<div class=muted>asked “{_e(read.query if read else '')}”, served</div>{served}</div>")


def _leaked(o: IsolationOutcome) -> str:
    read = next((r for r in o.reads if r.role == Role.READER), None)
    served = "".join(f"<pre>{_marked(s.text, CANARY.get(o.secret, ''))}</pre>" for s in read.served) if read else ""
    return (f"<div class=f><b>LEAKED</b> {_e(o.probe)} · {_e(o.secret)}: written as {_e(o.owner.key())}, "
            f"read as {_e(o.reader.key())}{served}</div>")


def _row(result: FrontdoorResult, run: RunRecord) -> str:
    landed = [o for o in result.poisoning if o.decision.verdict in (Verdict.SERVED, Verdict.MARKED)]
    leaked = [o for o in result.isolation if o.decision.verdict is Leak.LEAKED]
    shown = "".join(map(_landed, landed[:SHOWN])) + "".join(map(_leaked, leaked[:SHOWN]))
    more = len(landed) + len(leaked) - min(len(landed), SHOWN) - min(len(leaked), SHOWN)
    shown += f"<p class=muted>… {more} more in rows/{_e(result.store)}.json</p>" if more > 0 else ""
    facts = "".join(f"<p class=muted>{_e(line)}</p>" for line in provenance_lines(result))
    return (f"<h2>{_e(heading(result, run, outcome(result)))}</h2>{facts}{_cells(result)}{_probes(result)}"
            f"<details><summary>{len(landed)} attack(s) served or marked, {len(leaked)} leak(s): what was written and "
            f"served</summary>"
            f"{shown}</details>")


def render(results: list[FrontdoorResult], run: RunRecord) -> str:
    """The whole page."""
    status = run_status(outcome(r) for r in results)
    legend = "".join(f"<dt>{_e(term)}</dt><dd>{_e(meaning)}</dd>" for term, meaning in LEGEND)
    return (f"<!doctype html><html lang=en><meta charset=utf-8><title>memlab front door</title><style>{CSS}</style>"
            f"<body><h1>memlab front door</h1><p class=muted>{_e(run_facts(run, status))}</p>"
            f"{''.join(_row(r, run) for r in results)}<h2>How to read this page</h2><dl>{legend}</dl></body></html>\n")
