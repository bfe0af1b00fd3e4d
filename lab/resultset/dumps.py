"""The store dumps C3 was computed from must be dumps of the one store every case starts from.

Each case of a row runs on a fresh copy of the same seeded store, so the records the generic
editor read before every edit (``c3.records_before``) are the same dump in every case, and that
dump holds every record the seed plan wrote (by its marker). C3 re-run on a dump edited before
*and* after alike gives the same result (lab.judge.derive.c3_disagreements cannot see it); these
checks do: an edited dump differs from the other cases' or has lost a seeded marker.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from lab.judge.derive import SavedRow


def dump_disagreements(saved: SavedRow) -> list[tuple[str, str]]:
    """``(case, what differs)`` for every case whose ``records_before`` is not the row's one seeded store."""
    encoded: dict[str, str] = {}  # case -> the digest of its dump (one dump held at a time)
    texts: dict[str, str] = {}  # digest -> the dump's text, for each distinct dump
    for cid in saved.revision.cases:
        obs = saved.trials.get(cid)
        if obs is None or obs.c3 is None or obs.c3.records_before is None:
            continue
        text = json.dumps(obs.c3.records_before, sort_keys=True)
        encoded[cid] = hashlib.sha256(text.encode()).hexdigest()
        texts.setdefault(encoded[cid], text)
        del obs, text
    if not encoded:
        return []
    counts: dict[str, int] = {}
    for key in encoded.values():
        counts[key] = counts.get(key, 0) + 1
    common = max(counts, key=counts.__getitem__)  # the most frequent dump; on a tie the first case's
    first = next(cid for cid, key in encoded.items() if key == common)
    out = []
    for cid, key in encoded.items():
        if key != common:
            out.append((cid, f"c3.records_before differs from {first}'s (and {counts[common] - 1} other case(s)): "
                             "every case starts from a copy of the same seeded store, so the dumps must agree"))
    markers = _seeded_markers(saved)
    missing = [m for m in markers if m not in texts[common]]
    if missing:
        out.append((first, f"c3.records_before holds no record with seeded marker(s) {', '.join(missing[:5])} "
                           "of the seed plan (observations/.../seed.json plan.records)"))
    return out


def _seeded_markers(saved: SavedRow) -> list[str]:
    seed = saved.trials.get("seed")
    plan: Any = seed.plan if seed is not None else None
    records = plan.get("records") if isinstance(plan, dict) else None
    return [r["marker"] for r in records or [] if isinstance(r, dict) and isinstance(r.get("marker"), str)]
