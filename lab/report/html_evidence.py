"""The HTML pieces of one cell's evidence, rendered for a reader rather than dumped as JSON.

What a cell panel (:func:`lab.report.html.cell_panel`) shows: the edit intended (a small
table), the exact statements run (code), the C3 result with the records before and after the
edit (a table of the records that differ, the differing part marked), what the SUT served
after the restart, the refusal or signals it raised, the effect check, the audit call, the
timings. The records come from the cell's observation file (``observations/<row>/<case>.json``)
when the result set's folder is given; without it the panel keeps to what the row file holds
(the C3 summary).
"""

from __future__ import annotations

import json
import re
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lab.resultset.files import read_json
from lab.resultset.stored_dumps import resolved

if TYPE_CHECKING:
    from lab.judge.row import RowC3, RowCell, RowEvidence

#: Label -> background of a verdict chip.
COLOURS = {"REJ": "#116329", "REP": "#2da44e", "REP·a": "#9a6700", "ACC": "#cf222e", "ERR": "#8250df",
           "n/a": "#8c959f", "?": "#57606a"}
#: At most this many differing records in a C3 table (the observation file holds them all).
MAX_RECORDS = 12
_WINDOW = 48  # characters of context kept either side of a difference in a long value
_MARKER = re.compile(r"\[(m[A-Z]\d+-[0-9a-z]+)\]")


def none(text: str = "none") -> str:
    """A muted placeholder."""
    return f'<span class="muted">{escape(text)}</span>'


def chip(label: str) -> str:
    """A verdict label on its colour."""
    return f'<span class="chip" style="background:{COLOURS.get(label, COLOURS["?"])}">{escape(label)}</span>'


def text(value: Any) -> str:
    """A value as short text: scalars as they are, lists joined, objects as compact JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value):
        return ", ".join(map(str, value))
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def flat(value: Any, prefix: str = "") -> str:
    """A value as one line of ``key value`` pairs (nested keys dotted), for a reader, not a parser."""
    if isinstance(value, dict):
        parts = [flat(v, f"{prefix}{k}.") if isinstance(v, dict) else f"{prefix}{k} {flat(v)}"
                 for k, v in value.items() if v not in (None, [], {}, "")]
        return " · ".join(parts) if parts else "—"
    if isinstance(value, list):
        return "; ".join(flat(v) for v in value) if value else "—"
    return text(value)


def kv(pairs: Any) -> str:
    """A two-column table of ``(key, html)`` pairs, or of a dict's non-empty fields (values escaped)."""
    if isinstance(pairs, dict):
        pairs = [(k, escape(flat(v))) for k, v in pairs.items() if v not in (None, [], {}, "")]
    if not pairs:
        return none()
    body = "".join(f"<tr><th>{escape(str(k))}</th><td>{v}</td></tr>" for k, v in pairs)
    return f'<table class="kv">{body}</table>'


def code(lines: Any) -> str:
    """Lines as a code block."""
    if not lines:
        return none("no statements recorded")
    return "<pre><code>" + escape("\n".join(map(str, lines))) + "</code></pre>"


def _marked(values: list[Any]) -> list[str]:
    """Each value as HTML; when they are strings that differ, the differing part marked and long
    values cut to a window around it."""
    strings = [v for v in values if isinstance(v, str)]
    if len(strings) < 2 or len(set(strings)) < 2 or len(strings) != len([v for v in values if v is not None]):
        return [none("absent") if v is None else escape(_cut(text(v))) for v in values]
    p = len(_common(strings))
    s = len(_common([x[p:][::-1] for x in strings]))
    while p and all(x[p - 1].isalnum() for x in strings):  # mark whole tokens
        p -= 1
    while s and all(x[len(x) - s].isalnum() for x in strings):
        s -= 1
    out = []
    for v in values:
        if v is None:
            out.append(none("absent"))
            continue
        head, mid, tail = v[:p], v[p:len(v) - s], v[len(v) - s:]
        if len(v) > 4 * _WINDOW:
            head = ("…" + head[-_WINDOW:]) if len(head) > _WINDOW else head
            tail = (tail[:_WINDOW] + "…") if len(tail) > _WINDOW else tail
        mid = (mid[:2 * _WINDOW] + "…") if len(mid) > 3 * _WINDOW else mid
        out.append(f"{escape(head)}<mark>{escape(mid)}</mark>{escape(tail)}")
    return out


def _cut(value: str) -> str:
    return value if len(value) <= 4 * _WINDOW else value[:4 * _WINDOW] + "…"


def _common(strings: list[str]) -> str:
    first, last = min(strings), max(strings)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    return first[:n]


def _fields(record: dict[str, Any]) -> dict[str, Any]:
    raw = record.get("fields")
    if isinstance(raw, dict) and raw:
        return raw
    return {k: record.get(k) for k in ("context", "identity", "order", "payload", "metadata")}


def _key(record: dict[str, Any]) -> str:
    return json.dumps(record.get("locator") or record.get("identity"), sort_keys=True, default=str)


def _label(records: list[dict[str, Any]], varying: set[str]) -> str:
    locator = next((r.get("locator") for r in records if isinstance(r.get("locator"), dict)), None) or {}
    where = " ".join(f"{k} {flat(v)}" for k, v in locator.items() if k in varying) or flat(records[0].get("identity"))
    marker = next((m.group(1) for r in records if (m := _MARKER.search(str(r.get("payload") or "")))), "")
    return f"{where} · {marker}" if marker else where


def records_table(states: list[tuple[str, list[dict[str, Any]]]]) -> str:
    """The records that differ between the states (``(title, records)``, oldest first): one line per
    differing field, or one per record that is absent from a state."""
    index = [{_key(r): r for r in records if isinstance(r, dict)} for _, records in states]
    keys = list(dict.fromkeys(k for states_index in index for k in states_index))
    every = [r for states_index in index for r in states_index.values()]
    locs = [r.get("locator") for r in every if isinstance(r.get("locator"), dict)]
    varying = {k for k in {k for loc in locs for k in loc} if len({text(loc.get(k)) for loc in locs}) > 1}
    lines, more = [], 0
    for key in keys:
        found = [ix.get(key) for ix in index]
        fields = [None if r is None else _fields(r) for r in found]
        if all(f == fields[0] for f in fields):
            continue
        if len(lines) >= MAX_RECORDS:
            more += 1
            continue
        label = escape(_label([r for r in found if r is not None], varying))
        if any(f is None for f in fields):
            values = _marked([None if r is None else r.get("payload") for r in found])
            lines.append((label, "the record", values))
            continue
        for name in dict.fromkeys(k for f in fields for k in f):
            got = [f.get(name) for f in fields]
            if any(g != got[0] for g in got):
                lines.append((label, escape(name), _marked(got)))
    if not lines:
        return none("no record differs at the record level (the order or a file changed)")
    head = "".join(f"<th>{escape(title)}</th>" for title, _ in states)
    body = "".join(f"<tr><td>{label}</td><td><code>{name}</code></td>"
                   + "".join(f"<td><code>{v}</code></td>" for v in values) + "</tr>" for label, name, values in lines)
    tail = f'<p class="muted">and {more} more differing record(s): see the observation file</p>' if more else ""
    return f'<table class="recs"><tr><th>record</th><th>field</th>{head}</tr>{body}</table>{tail}'


def observation(root: Path | None, folder: Any, name: Any) -> tuple[dict[str, Any] | None, str]:
    """The cell's observation file ``name`` in the row's ``folder`` (its ``observations``) of the result set
    at ``root`` and its path, or None (and why)."""
    rel = f"{folder}/{name}"
    if root is None or not name:
        return None, rel
    base = Path(root).resolve()
    path = (base / rel).resolve()
    if base not in path.parents:
        return None, f"{rel} (outside the result set: not read)"
    try:
        data = resolved(path.parent, read_json(path), rel)  # the store dumps it refers to, in place
    except (OSError, ValueError) as exc:
        return None, f"{rel} (not read: {type(exc).__name__})"
    return (data if isinstance(data, dict) else None), rel


def c3_block(c3: RowC3 | None, obs: dict[str, Any] | None) -> str:
    """C3: landed or not (with reasons), the summary the row holds, the records before and after."""
    if c3 is None or c3.ok is None:
        return none("no edit was made (the case was not run)")
    verdict = ('<p class="ok">the edit landed: the raw store changed as the case intends</p>' if c3.ok else
               '<p class="bad">the edit did not land: ' + escape("; ".join(map(str, c3.reasons or []))) + "</p>")
    ev = c3.evidence or {}
    changes = ev.get("record_changes") or ev.get("between") or {}
    counts = [f"{ev[k]} {k.split('_')[1]}" for k in ("records_before", "records_between", "records_after") if k in ev]
    pairs = [("records", escape(" → ".join(counts)))] if counts else []
    pairs += [(f"records {k}", escape(", ".join(map(str, v)))) for k, v in changes.items() if v]
    files = c3.files or {}
    pairs += [(f"files {k}", escape(", ".join(map(str, v)))) for k, v in files.items() if v]
    if "restored_equal" in ev:
        pairs.append(("restored copy equals the store before", "yes" if ev["restored_equal"] else "<b>no</b>"))
    rest = {k: v for k, v in ev.items() if k not in {"record_changes", "between", "files_changed", "restored_equal",
                                                      "records_before", "records_between", "records_after"}}
    pairs += [(k, escape(text(v))) for k, v in rest.items()]
    out = verdict + kv(pairs)
    raw = (obs or {}).get("c3") or {}
    if isinstance(raw.get("records_before"), list) and isinstance(raw.get("records_after"), list):
        states = [("before the edit", raw["records_before"])]
        if isinstance(raw.get("records_between"), list):
            states.append(("after the SUT's own op", raw["records_between"]))
        states.append(("after" + (" the restore" if len(states) > 1 else " the edit"), raw["records_after"]))
        out += records_table(states)
    return out


def served_block(ev: RowEvidence) -> str:
    """What the read after the restart returned, or the refusal."""
    refusal, served = ev.refusal, ev.served
    out = f'<p class="bad">refused: {escape(flat(refusal))}</p>' if refusal else ""
    if served is None:
        return out or none("nothing served (the read was refused or failed)")
    if not served:
        return out + none("an empty result")
    return out + '<ol class="served">' + "".join(f"<li><code>{escape(text(s))}</code></li>" for s in served) + "</ol>"


def signals_block(signals: Any) -> str:
    """Each signal the SUT raised during the op: level, channel, source, message, the rest."""
    if not signals:
        return none("no signal")
    rows = []
    for sig in signals:
        sig = sig if isinstance(sig, dict) else {"message": sig}
        rest = {k: v for k, v in sig.items() if k not in ("level", "channel", "logger", "message")}
        rows.append("<tr>" + "".join(f"<td>{escape(text(sig.get(k) or ''))}</td>"
                                     for k in ("level", "channel", "logger"))
                    + f"<td><code>{escape(text(sig.get('message') or ''))}</code>"
                    + (f' <span class="muted">{escape(flat(rest))}</span>' if rest else "") + "</td></tr>")
    return ('<table class="recs"><tr><th>level</th><th>channel</th><th>logger</th><th>message</th></tr>'
            + "".join(rows) + "</table>")


def timings_text(timings: Any) -> str:
    """``copy 4.3 ms · edit + C3 15.9 ms · ...``."""
    if not isinstance(timings, dict):
        return ""
    names = {"edit_c3": "edit + C3"}
    return " · ".join(f"{names.get(k, k)} {float(v) * 1000:.1f} ms" for k, v in timings.items()
                      if isinstance(v, (int, float)))



def variants_block(cell: RowCell) -> str:
    """Every variant the cell was taken over (its trial, verdict, reason, the statements it ran), the
    one that decided it marked; nothing for a cell of one expression."""
    listing = cell.variants or []
    if len(listing) < 2:
        return ""
    rows = []
    for v in listing:
        decided = " (decided the cell)" if v.variant == cell.decided_by else ""
        statements = (v.evidence and v.evidence.statements) or []
        rows.append(f"<tr><td><b>{escape(str(v.variant))}</b>{escape(decided)}<br>"
                    f"<span class=\"muted\">{escape(str(v.trial))}</span></td>"
                    f"<td>{escape(str(v.verdict))}</td><td>{escape(str(v.reason or ''))}</td>"
                    f"<td>{code(statements) if statements else none()}</td></tr>")
    return (f"<h4>Variants ({len(listing)}): the cell is the weakest for the SUT</h4>"
            "<table><tr><th>variant</th><th>verdict</th><th>reason</th><th>statements</th></tr>"
            + "".join(rows) + "</table>")
