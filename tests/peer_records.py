"""The peers' recorded outputs (tests/fixtures/peer-records/), shared by every test that runs a peer.

A live peer run's figures must equal its record's (``MEMLAB_RECORD_PEER=1`` writes the record anew
instead); without the peer the record stands in for it, and ``MEMLAB_REQUIRE_LIVE_PEER=1`` makes that a
failure. The session's summary (tests/conftest.py) counts each kind of comparison.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "tests" / "fixtures" / "peer-records"
#: How each peer comparison of this session was made: record name -> "live" or "recorded".
COMPARISONS: dict[str, str] = {}


def require_live() -> bool:
    """Whether a missing live peer fails the tests that need it (CI) instead of skipping them."""
    return os.environ.get("MEMLAB_REQUIRE_LIVE_PEER") == "1"


def mask(text: str, known: dict[str, str] | None = None) -> str:
    """Ports, temporary paths, this checkout's path and the ``known`` paths masked, so a record reads the
    same anywhere."""
    text = re.sub(r"(127\.0\.0\.1|localhost):\d+", r"\1:PORT", text)
    text = re.sub(r"/tmp/[^\s\"']*", "<tmp>", text)
    for path, name in (known or {}).items():
        text = text.replace(path, name)
    return text.replace(str(ROOT), "<checkout>")


def recorded(record: str, why_not_live: str) -> dict:
    """The record standing in for a peer that cannot run here (a failure where a live one is required)."""
    path = RECORDS / f"{record}.json"
    if require_live():
        pytest.fail(why_not_live)
    assert path.is_file(), f"no recorded output of the peer for {record!r} at {path}"
    COMPARISONS[record] = "recorded"
    return json.loads(path.read_text(encoding="utf-8"))


def kept(record: str, entry: dict, live: Any, figures: Callable[[dict], Any], doc: str) -> None:
    """A live run's ``entry`` written as the record (``MEMLAB_RECORD_PEER=1``), or its figures ``live``
    held equal to ``figures`` of the record; ``doc`` is where a re-record says why."""
    path = RECORDS / f"{record}.json"
    if os.environ.get("MEMLAB_RECORD_PEER") == "1":
        RECORDS.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(entry, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    else:
        assert path.is_file(), f"no record of {record!r}: run the test once with MEMLAB_RECORD_PEER=1"
        assert live == figures(json.loads(path.read_text(encoding="utf-8"))), (
            f"the live peer's figures for {record!r} differ from its record {path}: re-record with "
            f"MEMLAB_RECORD_PEER=1 and say why in {doc}")
    COMPARISONS[record] = "live"


def peer_run(record: str, prepare: Callable[[], Any], measure: Callable[[Any], dict],
             figures: Callable[[dict], Any], doc: str) -> dict:
    """The peer's outputs: ``measure(prepare())`` run live, its ``figures`` held to the record (or recorded
    anew, :func:`kept`); the record where ``prepare`` raises (the peer, or the row's venv it runs in,
    cannot be had here: :func:`recorded`)."""
    try:
        ready = prepare()
    except Exception as exc:  # no registry for the peer's wheel, or the row's venv cannot be built here
        return recorded(record, f"the peer cannot run live for {record}: {exc}")
    entry = measure(ready)
    kept(record, entry, figures(entry), figures, doc)
    return entry
