"""The lifecycle judge's time per query as the served answer grows: 1 KiB to 4 MiB, medians of 3.

One query of a ledger of 20 known values (current, stale, deleted, expired, another user's and
another tenant's), judged by ``judge_query`` on answers of each size (in characters), of three kinds:

- ``prose``: sentences, a few of the ledger's values among them, repeated to the size;
- ``rendered``: the same sentences as a search UI or log serves them (HTML highlights and entities,
  colour codes, percent-encoding, JSON escapes), so every rendering layer is undone;
- ``nested``: a stale value that contains a current one, repeated back to back (the case that was
  quadratic: one of 312 KiB took 59 s).

Prints per kind and size the median seconds, seconds per MiB and the load average, beside the
same query judged by revision 1 (the text as served, one fold: what the views cost) and by the peer
gate memorycheck's deterministic judge on the same answer and values, interleaved (its own Python,
``.peers/memorycheck``, installed by ``scripts/test.d/40-peers.sh``; "-" without it). ``--sizes``
caps the sizes (KiB), e.g. where a judge is slow.

    python3 bench/judge.py
    python3 bench/judge.py --sizes 1 16 256 --runs 5
"""

from __future__ import annotations

import argparse
import html
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lab.lifecycle.judge import judge_query  # noqa: E402
from lab.lifecycle.ledger import Known, Label  # noqa: E402
from lab.lifecycle.matching import JudgeLimit  # noqa: E402
from lab.lifecycle.scenario import Scope  # noqa: E402

ALICE, BOB, ERIN = Scope("acme", "alice"), Scope("acme", "bob"), Scope("globex", "erin")
#: (key, value, label, scope): the ledger of the query, 20 values.
LEDGER = [
    ("office", "Porto office", Label.CURRENT, ALICE), ("office", "Porto office annex 2", Label.STALE, ALICE),
    ("office", "Lisbon office", Label.STALE, ALICE), ("plan", "scale-annual-2026", Label.CURRENT, ALICE),
    ("plan", "starter-legacy-2024", Label.DELETED, ALICE), ("gym", "gym card 7731", Label.DELETED, ALICE),
    ("otp", "code 839-QUAIL", Label.EXPIRED, ALICE), ("city", "Zürich", Label.CURRENT, ALICE),
    ("city", "Łódź", Label.STALE, ALICE), ("team", "Teal Falcon", Label.CURRENT, ALICE),
    ("team", "Teal Falcon Reserve", Label.STALE, ALICE), ("vendor", "Brightmoor Ltd", Label.CURRENT, ALICE),
    ("tokyo", "東京オフィス", Label.CURRENT, ALICE), ("desk", "bob's desk 12", Label.FOREIGN_USER, BOB),
    ("car", "Škoda Octavia 4242", Label.FOREIGN_USER, BOB),
    ("vendor", "Erin's vendor Northwind", Label.FOREIGN_TENANT, ERIN),
    ("bank", "IBAN DE44 5001 0517 5407 3249 31", Label.FOREIGN_TENANT, ERIN), ("pet", "Biscuit", Label.CURRENT, ALICE),
    ("pet", "Muffin", Label.EXPIRED, ALICE), ("diet", "no shellfish", Label.CURRENT, ALICE),
]
KNOWN = [Known(key, value, scope, label, at) for at, (key, value, label, scope) in enumerate(LEDGER)]
SENTENCES = [
    "Your office is the {0} and your plan is {1}; the team you joined is {2}.",
    "You moved to {3} last spring, and your vendor is {4}. Lunch: {5}, as you asked.",
    "Nothing else on file changed since we last spoke about the Lisbon office, so I kept the notes short.",
]
VALUES = ["Porto office", "scale-annual-2026", "Teal Falcon", "Zürich", "Brightmoor Ltd", "no shellfish"]
#: The must_use keys of the query (those the answers serve) and their current values.
CURRENT = {k.key: k.value for k in KNOWN if k.label is Label.CURRENT and k.value in VALUES}


def _rendered(value: str, i: int) -> str:
    """One of the renderings a search UI or a log applies, in turn."""
    forms = (f"<b>{value[:3]}</b>{html.escape(value[3:])}", "".join(f"&#{ord(c)};" for c in value),
             f"\x1b[1;32m{value}\x1b[0m", quote(value), json.dumps(value))
    return forms[i % len(forms)]


def answer(kind: str, size: int) -> str:
    """An answer of ``kind`` of about ``size`` characters."""
    if kind == "nested":  # stale "Teal Falcon Reserve" holds current "Teal Falcon", back to back
        unit = "Teal Falcon Reserve Teal Falcon "
        return (unit * (size // len(unit) + 1))[:size]
    parts, length, i = [], 0, 0
    while length < size:
        values = VALUES if kind == "prose" else [_rendered(v, i + j) for j, v in enumerate(VALUES)]
        parts.append(SENTENCES[i % len(SENTENCES)].format(*values) + " ")
        length, i = length + len(parts[-1]), i + 1
    return "".join(parts)[:size]


PEER_PYTHON = ROOT / ".peers" / "memorycheck" / "bin" / "python"
PEER_TIMER = """
import json, statistics, sys, time
from memorycheck.judge import DeterministicJudge
text = open(sys.argv[1], encoding="utf-8").read()
values, runs, seconds = json.loads(sys.argv[2]), int(sys.argv[3]), []
for _ in range(runs):
    started = time.perf_counter()
    DeterministicJudge().classify(text, values)
    seconds.append(time.perf_counter() - started)
print(statistics.median(seconds))
"""


def timed(text: str, runs: int, revision: int = 2) -> float | None:
    """Median seconds of ``runs`` judgements of ``text`` (None: over the judge's own deadline)."""
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        try:
            judge_query(KNOWN, text, list(CURRENT), CURRENT, revision=revision)
        except JudgeLimit:
            return None
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds)


def peer_timed(text: str, runs: int) -> float | None:
    """The peer judge's median seconds on the same answer and values, in its own Python (None: not installed)."""
    if not PEER_PYTHON.is_file():
        return None
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt") as held:
        held.write(text)
        held.flush()
        done = subprocess.run([str(PEER_PYTHON), "-c", PEER_TIMER, held.name, json.dumps([k.value for k in KNOWN]),
                               str(runs)], capture_output=True, text=True, check=True)
    return float(done.stdout)


def _shown(seconds: float | None, width: int = 10) -> str:
    return f"{seconds:>{width}.3f}" if seconds is not None else f"{'-':>{width}}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 16, 256, 1024, 4096], help="KiB")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    judge_query(KNOWN, "warm-up: Porto office", list(CURRENT), CURRENT)  # imports, the automaton
    print(f"load average at start: {', '.join(f'{x:.1f}' for x in os.getloadavg())}; {len(KNOWN)} ledger "
          f"values, median of {args.runs} runs")
    print(f"{'answer':<10}{'KiB':>7}{'median s':>11}{'s / MiB':>10}{'rev 1 s':>10}{'peer s':>10}")
    for kind in ("prose", "rendered", "nested"):
        for kib in args.sizes:
            text = answer(kind, kib * 1024)
            median = timed(text, args.runs)
            shown = (f"{median:>11.3f}{median / (kib / 1024):>10.2f}" if median is not None
                     else f"{'deadline':>11}{'-':>10}")
            print(f"{kind:<10}{kib:>7}{shown}{_shown(timed(text, args.runs, 1))}{_shown(peer_timed(text, args.runs))}",
                  flush=True)
    print(f"load average at end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
