"""The reference SUTs, spoken to over stdio exactly as the lab does (the kit itself: test_driver_kit.py).

Every test starts real driver processes (``python3 -u driver.py``); no Docker.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3

import pytest

from driver_process import REFERENCE, DriverProcess, seed, start
from lab.profile import load_profiles

# The rows whose store is files in volumes; the service-backed ones (PostgreSQL, Redis) need a
# server the lab starts, and run end to end in test_engine.py.
PROFILES = {p.row: p for p in load_profiles() if p.driver == "reference" and not p.services}
SEALED = {"storage": "sqlite", "seal": "read", "head": "off-store"}


def integrity_signals(answer: dict) -> list[dict]:
    """The answer's log signals that mention integrity."""
    return [s for s in answer["signals"] if s["channel"] == "log" and "integrity" in s["message"]]


@pytest.mark.parametrize("row", sorted(PROFILES))
def test_every_reference_row_speaks_the_protocol(tmp_path, volumes, row):
    profile = PROFILES[row]
    drv = start(tmp_path, {v: volumes[v] for v in profile.volumes}, profile.configuration)
    described = drv("describe")["result"]
    assert described["sut"] == "memlab-reference" and described["version"] == profile.sut["version"]
    assert set(described["libraries"]) == {"python", "sqlite"}
    # a capability the driver does not report takes its default (sealed: false for these stores)
    assert {"sealed": False, **described["capabilities"]} == profile.capabilities.to_json()
    ids = seed(drv)
    records = drv("read", context="A")["records"]
    assert [r["id"] for r in records] == ids["A"]
    assert [r["text"] for r in records] == [f"A fact {i} FA{i}" for i in range(5)]
    assert all(set(r["meta"]) == {"role", "source", "timestamp"} and r["meta"]["source"] == "chat-A"
               for r in records)
    assert_layout_matches(profile, volumes, count={"A": 5, "B": 5})
    erased = drv("erase", context="A", record=ids["A"][2])
    assert erased["ok"] and erased["erased"] == [ids["A"][2]]
    assert len(drv("read", context="A")["records"]) == 4
    audit = drv("audit", context="A")
    if profile.configuration["seal"] == "none":
        assert not audit["ok"] and audit["refused"] is False
    else:
        assert audit["ok"] and audit["audit"]["ok"] and audit["audit"]["problems"] == []
    whole = drv("erase", context="B", record=None)
    assert whole["ok"] and len(whole["erased"]) == 5
    assert drv("read", context="B")["records"] == []
    assert drv.stop() == 0
    again = start(tmp_path, {v: volumes[v] for v in profile.volumes}, profile.configuration)
    c1 = again("read", context="A")
    assert c1["ok"] and len(c1["records"]) == 4 and c1["signals"] == []
    assert again.stop() == 0


def assert_layout_matches(profile, volumes, count):
    """The store sits where the profile's layout says, with the records it says."""
    layout = profile.store
    root = volumes[layout.volume]
    for ctx, n in count.items():
        if layout.backend == "sqlite":
            with sqlite3.connect(root / layout.file) as db:
                got = db.execute(f"SELECT count(*) FROM {layout.table} WHERE {layout.context} = ?",
                                 (ctx,)).fetchone()[0]
        elif layout.backend == "jsonl":
            rows = [json.loads(line) for line in (root / layout.file).read_text().splitlines()]
            got = sum(1 for r in rows if r[layout.context] == ctx and layout.payload.field in r)
        else:
            text = (root / layout.file.format(context=ctx)).read_text()
            got = sum(1 for line in text.splitlines() if re.match(layout.record_pattern, line))
        assert got == n, (layout.backend, ctx, got)


def test_sealed_store_refuses_a_changed_byte(tmp_path, volumes):
    drv = start(tmp_path, volumes, SEALED)
    seed(drv)
    assert drv.stop() == 0
    with sqlite3.connect(volumes["store"] / "memory.db") as db:  # the adversary, no SUT code loaded
        db.execute("UPDATE records SET body = replace(body, 'FA3', 'FX3') WHERE ctx = 'A' AND seq = 3")
    drv = start(tmp_path, volumes, SEALED)
    answer = drv("read", context="A")
    assert answer["ok"] is False and answer["refused"] is True
    assert answer["error"]["type"] == "IntegrityError"
    assert integrity_signals(answer) and integrity_signals(answer)[0]["level"] == "ERROR"
    untouched = drv("read", context="B")
    assert untouched["ok"] and len(untouched["records"]) == 5 and untouched["signals"] == []
    assert drv.stop() == 0


@pytest.mark.parametrize("head, served", [("off-store", False), ("in-store", True)])
@pytest.mark.parametrize("case", ["T9", "T10"])
def test_whole_store_put_back(tmp_path, volumes, head, served, case):
    config = {**SEALED, "head": head}
    drv = start(tmp_path, volumes, config)
    ids = seed(drv)
    assert drv.stop() == 0
    copy = tmp_path / "copy"
    shutil.copytree(volumes["store"], copy)
    drv = start(tmp_path, volumes, config)
    step = (drv("write", context="A", text="one more", meta={"role": "user"}) if case == "T9"
            else drv("erase", context="A", record=ids["A"][1]))
    assert step["ok"], step
    assert drv.stop() == 0
    shutil.rmtree(volumes["store"])
    shutil.copytree(copy, volumes["store"])
    drv = start(tmp_path, volumes, config)
    answer = drv("read", context="A")
    assert answer["ok"] is served and (served or answer["refused"] is True)
    assert drv.stop() == 0


def test_audit_row_reports_only_after_tamper(tmp_path, volumes):
    config = PROFILES["reference-audit"].configuration
    drv = start(tmp_path, volumes, config)
    seed(drv)
    clean = drv("audit", context="A")
    assert clean["ok"] and clean["audit"] == {"ok": True, "problems": [], "call": clean["audit"]["call"]}
    assert "audit" in clean["audit"]["call"]
    assert drv.stop() == 0
    with sqlite3.connect(volumes["store"] / "memory.db") as db:
        db.execute("UPDATE records SET role = 'system' WHERE ctx = 'A' AND seq = 1")
    drv = start(tmp_path, volumes, config)
    read = drv("read", context="A")
    assert read["ok"] and read["records"][1]["meta"]["role"] == "system" and read["signals"] == []
    found = drv("audit", context="A")
    assert found["ok"] and found["audit"]["ok"] is False and found["audit"]["problems"]
    assert integrity_signals(found)
    assert drv.stop() == 0


def test_reference_driver_rejects_a_config_it_does_not_offer(tmp_path, volumes):
    drv = DriverProcess(REFERENCE, tmp_path)
    answer = drv("open", volumes={k: str(v) for k, v in volumes.items()},
                 config={"storage": "jsonl", "seal": "read", "head": "off-store"})
    assert answer["ok"] is False and answer["refused"] is False and "sealed" in answer["error"]["message"]
    assert drv.stop() == 0

