"""The ``derived=recomputed`` variant (edits.derived) on real SQLite stores: an unkeyed hash chain
over the records' own rows (continuum's shape) and a per-record commitment kept in a chained
event table (atmem's). Each record case lands with every derived value consistent and passes its
C3; the default edit judged as the variant (the derived values left wrong) fails it; a layout
whose declaration does not describe the store is refused before anything is written."""

import hashlib
import json
import sqlite3
from dataclasses import replace

import pytest
from edit_stores import open_editor, seed, specs
from place_stores import c3_of, measure

from edits import derived
from edits.derived_layout import RECOMPUTED
from edits.layout import parse_layout
from edits.layout_fields import LayoutError
from edits.model import EditError

CASES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8")
JSON = dict(sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def sha(obj) -> str:
    return hashlib.sha256((obj if isinstance(obj, str) else json.dumps(obj, **JSON)).encode()).hexdigest()


def chain_store(vol):
    """events(event_id, run, seq, body, role, prev, hash): hash = sha256 of the row's JSON, prev its predecessor's."""
    db = sqlite3.connect(vol / "m.db")
    db.execute("CREATE TABLE events (event_id TEXT PRIMARY KEY, run TEXT, seq INTEGER, body TEXT, role TEXT,"
               " prev TEXT, hash TEXT, UNIQUE(run, seq))")
    heads = {}
    for r in seed():
        seq = r["i"]
        row = {"event_id": f"e-{r['ctx']}{seq}", "run": r["ctx"], "seq": seq, "body": r["text"],
               "role": r["role"], "prev": heads.get(r["ctx"])}
        row["hash"] = heads[r["ctx"]] = sha(row)
        db.execute("INSERT INTO events VALUES (:event_id, :run, :seq, :body, :role, :prev, :hash)", row)
    db.commit()
    db.close()
    return parse_layout({"backend": "sqlite", "volume": "store", "file": "m.db", "table": "events", "context": "run",
                         "identity": ["event_id"], "order": "seq", "payload": "body", "metadata": {"role": "role"},
                         "derived": [{"field": "hash", "digest": "sha256",
                                      "of": ["event_id", "run", "seq", "body", "role", "prev"],
                                      "chain": {"link": "prev", "order": "seq", "group": "run", "renumber": True}}]})


def commitment_store(vol):
    """records(id, ctx, n, body, role) and log(n, ctx, kind, rid, payload JSON {sha}, prev, h) chained per ctx."""
    db = sqlite3.connect(vol / "m.db")
    db.execute("CREATE TABLE records (id TEXT PRIMARY KEY, ctx TEXT, n INTEGER, body TEXT, role TEXT)")
    db.execute("CREATE TABLE log (n INTEGER PRIMARY KEY AUTOINCREMENT, ctx TEXT, kind TEXT, rid TEXT, payload TEXT,"
               " prev TEXT, h TEXT)")
    heads = {}
    for r in seed():
        rec = {"id": f"r-{r['ctx']}{r['i']}", "ctx": r["ctx"], "n": r["i"], "body": r["text"], "role": r["role"]}
        db.execute("INSERT INTO records VALUES (:id, :ctx, :n, :body, :role)", rec)
        for kind, rid, payload in (("note", None, {"seen": r["i"]}), ("created", rec["id"], {"sha": sha(rec)})):
            ev = {"ctx": r["ctx"], "kind": kind, "rid": rid, "payload": payload, "prev": heads.get(r["ctx"])}
            ev["h"] = heads[r["ctx"]] = sha(ev)
            db.execute("INSERT INTO log (ctx, kind, rid, payload, prev, h) VALUES (?, ?, ?, ?, ?, ?)",
                       (ev["ctx"], kind, rid, json.dumps(payload), ev["prev"], ev["h"]))
    db.commit()
    db.close()
    return parse_layout({"backend": "sqlite", "volume": "store", "file": "m.db", "table": "records", "context": "ctx",
                         "identity": ["id"], "order": "n", "payload": "body", "metadata": {"role": "role"},
                         "derived": [
                             {"field": {"field": "payload", "path": ["sha"]}, "table": "log", "digest": "sha256",
                              "of": ["id", "ctx", "n", "body", "role"], "source": {"table": "records",
                                                                                  "match": {"rid": "id"}},
                              "where": {"kind": "created"}, "orphans": "delete"},
                             {"field": "h", "table": "log", "digest": "sha256",
                              "of": ["ctx", "kind", "rid", "payload", "prev"], "json": ["payload"],
                              "chain": {"link": "prev", "order": "n", "group": "ctx"}}]})


STORES = {"chain": chain_store, "commitment": commitment_store}


def fresh(tmp_path, kind, name):
    vol = tmp_path / f"{kind}-{name}"
    vol.mkdir()
    return STORES[kind](vol), vol


@pytest.mark.parametrize("kind", sorted(STORES))
def test_the_declarations_describe_the_untouched_stores(tmp_path, kind):
    layout, vol = fresh(tmp_path, kind, "seeded")
    editor = open_editor(layout, vol)
    assert derived.problems(editor) == []
    assert all(r.derived and all(s["wrong"] == 0 and s["checked"] > 0 for s in r.derived.values())
               for r in editor.records())


@pytest.mark.parametrize("kind,case", [(k, c) for k in sorted(STORES) for c in CASES])
def test_each_case_offers_the_variant_and_lands_with_the_derived_values_consistent(tmp_path, kind, case):
    layout, vol = fresh(tmp_path, kind, case)
    spec = specs()[case]
    editor = open_editor(layout, vol)
    assert RECOMPUTED in editor.variants(spec, editor.records())
    result, applied = measure(layout, vol, replace(spec, variant=RECOMPUTED))
    assert result.ok, result.reasons
    assert applied.detail["variant"] == RECOMPUTED
    assert derived.problems(open_editor(layout, vol)) == []
    if (kind, case) not in {("chain", "T2"), ("commitment", "T5")}:  # a chain cut at its tail, a forged
        # record no event names: nothing to recompute
        assert applied.detail["recomputed"], applied.detail


def test_a_middle_deletion_renumbers_the_chain_and_an_orphan_event_goes_with_its_record(tmp_path):
    layout, vol = fresh(tmp_path, "chain", "t3")
    measure(layout, vol, replace(specs()["T3"], variant=RECOMPUTED))
    rows = sqlite3.connect(vol / "m.db").execute("SELECT seq FROM events WHERE run = 'A' ORDER BY seq").fetchall()
    assert [r[0] for r in rows] == [1, 2, 3, 4]
    layout, vol = fresh(tmp_path, "commitment", "t3")
    result, applied = measure(layout, vol, replace(specs()["T3"], variant=RECOMPUTED))
    kinds = sqlite3.connect(vol / "m.db").execute("SELECT count(*) FROM log WHERE kind = 'created' AND ctx = 'A'")
    assert kinds.fetchone()[0] == 4 and {"value": "log.payload.sha", "rows": 1, "deleted": 1} in applied.detail[
        "recomputed"]


@pytest.mark.parametrize("kind,case", [(k, c) for k in sorted(STORES) for c in ("T1", "T4", "T6", "T8")])
def test_the_default_edit_judged_as_the_variant_fails_its_c3(tmp_path, kind, case):
    layout, vol = fresh(tmp_path, kind, f"wrong-{case}")
    spec = specs()[case]
    result, _ = c3_of(layout, vol, replace(spec, variant=RECOMPUTED), spec)
    assert not result.ok
    assert any("derived values wrong" in r and "the recompute did not land" in r for r in result.reasons), result.reasons


def test_the_default_edit_still_fails_nothing_and_keeps_its_own_c3(tmp_path):
    layout, vol = fresh(tmp_path, "chain", "default")
    spec = specs()["T1"]
    result, applied = measure(layout, vol, spec)
    assert result.ok, result.reasons
    assert "recomputed" not in applied.detail and derived.problems(open_editor(layout, vol))


def test_a_declaration_that_does_not_describe_the_store_is_refused_before_any_write(tmp_path):
    layout, vol = fresh(tmp_path, "chain", "misdeclared")
    wrong = [{**layout.options["derived"][0], "digest": "sha1"}]
    layout = replace(layout, options={"derived": wrong})
    before = (vol / "m.db").read_bytes()
    with pytest.raises(EditError, match="do not match their declaration"):
        open_editor(layout, vol).apply(replace(specs()["T1"], variant=RECOMPUTED))
    assert (vol / "m.db").read_bytes() == before


@pytest.mark.parametrize("entry,message", [
    ({"field": "h", "digest": "crc32", "of": ["b"]}, "derived[0].digest: unknown digest"),
    ({"field": "h", "digest": "sha256", "of": []}, "derived[0].of: must name the columns"),
    ({"field": "h", "digest": "sha256", "of": ["a", "b"], "form": "text"}, "form text digests one column"),
    ({"field": "h", "digest": "sha256", "of": ["b"], "orphans": "delete"}, "delete needs a source"),
    ({"field": "h", "digest": "sha256", "of": ["b"], "chain": {"link": "p"}}, "derived[0].chain: must be"),
    ({"field": "h", "digest": "sha256", "of": ["b"], "salt": "x"}, "derived[0].salt: unknown field"),
])
def test_a_bad_declaration_is_a_layout_error_naming_the_field(entry, message):
    store = {"backend": "sqlite", "volume": "store", "file": "m.db", "table": "t", "context": "c", "order": "o",
             "payload": "b", "derived": [entry]}
    with pytest.raises(LayoutError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_layout(store)
