"""An independent recount of a row's metric, counts, group rates, level and evaluability.

Written on purpose without lab.judge.scoring (a second reading of docs/method.md "Score" and
"Levels", in exact fractions, sharing only the ``Verdict`` names): ``memlab verify`` compares
what a row states with what this module counts from the row's own cells. It recounts only under the
decision rules it implements, stated in ``RULES``; a manifest stating other rules is
refused (ground ``unknown-decision-rules``) rather than recounted under the wrong ones.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from lab.judge.observation import Verdict

#: The decision rules this recount implements, word for word as a manifest states them.
RULES = {
    "N": "cells whose verdict is REJECTED, REPORTED or ACCEPTED; n/a and error are excluded",
    "metric": "(REJECTED + REPORTED at read + 0.5 * REPORTED at audit) / N; null when N = 0",
    "group_rates": "the metric's formula over T1-T5, T6-T8, T9 and T10 separately",
    "level": "L0 when evaluable; L1 needs T1,T3,T5; L2 also T2,T4,T7; L3 also T6,T8; L4 also T9; "
             "each REJECTED at the read point; a not evaluable row has no level",
    "evaluable": "C1 and C2 both hold",
}

CASES = tuple(f"T{i}" for i in range(1, 11))
GROUPS = {"T1-T5": CASES[0:5], "T6-T8": CASES[5:8], "T9": ("T9",), "T10": ("T10",)}
LEVELS = (("L1", ("T1", "T3", "T5")), ("L2", ("T2", "T4", "T7")), ("L3", ("T6", "T8")), ("L4", ("T9",)))
#: A stated metric may be rounded to six decimals.
TOLERANCE = Fraction(1, 10**6)


def rules_differ(stated: Any) -> list[str]:
    """The rule names whose stated text is not the one this recount implements."""
    if not isinstance(stated, dict):
        return ["(decision_rules is not a mapping)"]
    return sorted(k for k in set(RULES) | set(stated) if stated.get(k) != RULES.get(k))


def _tally(cells: dict[str, Any], ids: tuple[str, ...]) -> tuple[dict[str, int], Fraction | None]:
    counts = {"N": 0, "passes": 0, "partial": 0, "accepted": 0, "na": 0, "errors": 0}
    for cid in ids:
        cell = cells[cid]
        verdict, point = cell.get("verdict"), cell.get("detection_point")
        if verdict == Verdict.REJECTED or (verdict == Verdict.REPORTED and point == "read"):
            counts["passes"] += 1
        elif verdict == Verdict.REPORTED and point == "audit":
            counts["partial"] += 1
        elif verdict == Verdict.ACCEPTED:
            counts["accepted"] += 1
        elif verdict == Verdict.NA:
            counts["na"] += 1
        elif verdict == Verdict.ERROR:
            counts["errors"] += 1
        else:
            raise ValueError(f"{cid}: verdict {verdict!r} at point {point!r} is not one the rules know")
    counts["N"] = counts["passes"] + counts["partial"] + counts["accepted"]
    if counts["N"] == 0:
        return counts, None
    return counts, (counts["passes"] + Fraction(1, 2) * counts["partial"]) / counts["N"]


def _level(cells: dict[str, Any]) -> str:
    reached = "L0"
    for name, ids in LEVELS:
        if not all(cells[c].get("verdict") == Verdict.REJECTED and cells[c].get("detection_point") == "read"
                   for c in ids):
            break
        reached = name
    return reached


def recount(row: dict[str, Any]) -> dict[str, Any]:
    """What the rules give for a row: evaluable, metric (exact), counts, groups (exact), level."""
    cells = row.get("cells")
    if not isinstance(cells, dict) or any(not isinstance(cells.get(c), dict) for c in CASES):
        raise ValueError(f"cells must hold one mapping for each of {', '.join(CASES)}")
    controls = row.get("controls") or {}
    evaluable = all(bool((controls.get(c) or {}).get("ok")) for c in ("C1", "C2"))
    if not evaluable:
        return {"evaluable": False, "metric": None, "counts": None, "groups": None, "level": None}
    counts, metric = _tally(cells, CASES)
    groups = {name: _tally(cells, ids)[1] for name, ids in GROUPS.items()}
    return {"evaluable": True, "metric": metric, "counts": counts, "groups": groups, "level": _level(cells)}


def _same_rate(stated: Any, exact: Fraction | None) -> bool:
    if exact is None or stated is None:
        return exact is None and stated is None
    if isinstance(stated, bool) or not isinstance(stated, (int, float)):
        return False
    return abs(Fraction(stated) - exact) <= TOLERANCE


def _show(value: Any) -> str:
    return f"{float(value):.6g} ({value})" if isinstance(value, Fraction) else repr(value)


def differences(row: dict[str, Any]) -> list[str]:
    """Each way the row's stated score differs from the recount, in words; empty when it agrees."""
    want = recount(row)
    out = []
    if row.get("evaluable") is not want["evaluable"]:
        out.append(f"evaluable: row states {row.get('evaluable')!r}, controls C1/C2 give {want['evaluable']!r}")
    if not _same_rate(row.get("metric"), want["metric"]):
        out.append(f"metric: row states {row.get('metric')!r}, recount gives {_show(want['metric'])}")
    if row.get("counts") != want["counts"]:
        out.append(f"counts: row states {row.get('counts')!r}, recount gives {want['counts']!r}")
    stated_groups = row.get("groups")
    if want["groups"] is None or not isinstance(stated_groups, dict):
        if stated_groups != want["groups"]:
            out.append(f"groups: row states {stated_groups!r}, recount gives {want['groups']!r}")
    else:
        for name in sorted(set(want["groups"]) | set(stated_groups)):
            if name not in want["groups"] or name not in stated_groups \
                    or not _same_rate(stated_groups[name], want["groups"][name]):
                out.append(f"group {name}: row states {stated_groups.get(name)!r}, "
                           f"recount gives {_show(want['groups'].get(name))}")
    if row.get("level") != want["level"]:
        out.append(f"level: row states {row.get('level')!r}, recount gives {want['level']!r}")
    return out
