"""A hostile store: a SUT whose store file is a symlink out of its volume (or that keeps a fifo in it).
The generic editor refuses it, naming the link, so every edit cell is a harness error that says why,
the file outside is never edited, and the set memlab writes verifies (it failed its own verify with
five c3-not-derivable when the editor followed the link)."""

import os
from pathlib import Path

import pytest
from resultsets import cache, memlab  # noqa: F401 (cache: a fixture)

from edits.confine import StoreEscape, confine
from lab.resultset.loading import load_rows
from lab.resultset.verify import verify

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "fixtures" / "hostile"
PROFILE = """row: {row}
title: Reference naive JSON lines whose store reaches out of its volume ({kind})
sut: {{package: memlab-reference, version: 0.1.0}}
driver: {driver}
volumes:
  store: {{adversary: true}}
store: {{backend: jsonl, volume: store, file: memory.jsonl, context: ctx, identity: [id], order: "@position",
        payload: text, metadata: {{role: role, source: source, timestamp: ts}}}}
capabilities: {{erasure: record, order: true, metadata: true, snapshot: true}}
configuration: {{storage: jsonl, seal: none, head: none, hostile: {{kind: {kind}, outside: {outside}}}}}
timeouts: {{start: 30, op: 30}}
"""


def _run(tmp_path, cache, kind):  # noqa: F811
    profiles, outside, out = tmp_path / "profiles", tmp_path / "outside.jsonl", tmp_path / "out"
    profiles.mkdir()
    row = f"hostile-{kind}"
    (profiles / f"{row}.yaml").write_text(PROFILE.format(row=row, kind=kind, driver=HOSTILE, outside=outside))
    done = memlab("run", "--runtime", "local", "--profiles", profiles, "--sut", row, "--out", out, "--no-reports",
                  cache=cache, timeout=300)
    return done, out, outside, row


def test_a_store_file_linked_out_of_its_volume_is_refused_and_the_set_verifies(tmp_path, cache):  # noqa: F811
    done, out, outside, row = _run(tmp_path, cache, "link-out")
    assert done.returncode == 2 and "the generic editor refuses the store" in done.stderr, done.stderr
    assert verify(out).ok, verify(out).findings
    cells = load_rows(out)[0]["cells"]
    for cid in ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"):
        reason = cells[cid]["reason"]
        assert cells[cid]["verdict"] == "error" and "memory.jsonl" in reason and f"a symlink to {outside}" in reason
    text = outside.read_text()  # never edited: each seeded record in it once (the editor deleted, copied
    for marker in [f"[m{c}{i}-" for c in "AB" for i in range(5)]:  # and forged records there when it followed)
        assert text.count(marker) == 1, (marker, text)


def test_a_fifo_in_a_store_volume_is_refused_without_blocking(tmp_path, cache):  # noqa: F811
    done, out, _, row = _run(tmp_path, cache, "fifo")
    assert done.returncode == 2, done.stderr
    assert verify(out).ok, verify(out).findings
    reason = load_rows(out)[0]["cells"]["T1"]["reason"]
    assert "memory.fifo" in reason and "a fifo or a device" in reason, reason


def test_confine_takes_links_inside_the_volume_and_refuses_those_out(tmp_path):
    vol = tmp_path / "vol"
    (vol / "sub").mkdir(parents=True)
    (vol / "a.db").write_text("x")
    (vol / "sub" / "inside").symlink_to("../a.db")
    confine(vol)  # a link inside the volume is the store's own business
    (vol / "dangling").symlink_to(tmp_path / "not-yet")  # an editor creating it would write outside
    with pytest.raises(StoreEscape, match="dangling in volume .* is a symlink to"):
        confine(vol)
    (vol / "dangling").unlink()
    (tmp_path / "link").symlink_to(vol, target_is_directory=True)
    with pytest.raises(StoreEscape, match="is itself a symlink"):
        confine(tmp_path / "link")
    os.mkfifo(vol / "pipe")
    with pytest.raises(StoreEscape, match="pipe in volume .* is a fifo"):
        confine(vol)
