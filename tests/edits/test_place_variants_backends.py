"""``place=`` variants (edits.places) on the other record editors: a JSON document, Qdrant
points, LanceDB rows, PostgreSQL rows (text and jsonb columns) and Redis hashes, each on a real store. Every
variant offered changes its place only and passes C3; the default still edits every place; an
edit of another place fails the variant's C3; T8 on PostgreSQL has a variant per declared place."""

import json
from dataclasses import replace

import psycopg
import pytest
import redis
from edit_stores import FACTS, TAMPERED, open_editor, seed, specs
from place_stores import (JSON_T1, LANCEDB_T1, QDRANT_NESTED_T1, QDRANT_T1, ROLE_PLACES, c3_of, json_places,
                          lancedb_places, measure, qdrant_nested, qdrant_places, t1, t8)

from edits.base import editor_for
from edits.layout import parse_layout

FILE_STORES = {"json": (json_places, JSON_T1), "qdrant": (qdrant_places, QDRANT_T1),
               "qdrant-nested": (qdrant_nested, QDRANT_NESTED_T1), "lancedb": (lancedb_places, LANCEDB_T1)}

PG_LAYOUT = parse_layout({"backend": "postgres", "volume": "pgdata", "service": "db", "table": "place_notes",
                          "context": "session", "identity": ["id"], "order": "seq", "payload": "body",
                          "metadata": {"role": ROLE_PLACES}})
PG_T1 = ["place=body", "place=summary", "place=doc.copy.text", "place=doc.text"]  # jsonb orders keys
REDIS_LAYOUT = parse_layout({"backend": "redis", "volume": "data", "service": "cache",
                             "key": "place:{context}:rec:{id}", "identity": [], "order": "seq", "payload": "text",
                             "metadata": {"role": "role"}})
REDIS_T1 = ["place=raw.text", "place=raw.copy.text", "place=summary", "place=text"]  # by field name


def _doc(r):
    return {"role": r["role"], "text": r["text"], "copy": {"text": r["text"]}}


def fill_postgres(url):
    """A table with the text in columns body and summary and twice inside the jsonb column doc."""
    with psycopg.connect(url) as conn:
        conn.execute("DROP TABLE IF EXISTS place_notes")
        conn.execute("CREATE TABLE place_notes (id int PRIMARY KEY, session text, seq int, body text, "
                     "summary text, doc jsonb, role text)")
        for n, r in enumerate(seed()):
            conn.execute("INSERT INTO place_notes VALUES (%s,%s,%s,%s,%s,%s,%s)",
                         (n, r["ctx"], r["i"], r["text"], r["text"], json.dumps(_doc(r)), r["role"]))


def fill_redis(url):
    """Hashes with the text in fields text and summary and twice in the JSON text of field raw."""
    client = redis.Redis.from_url(url)
    client.flushall()
    for n, r in enumerate(seed()):
        client.hset(f"place:{r['ctx']}:rec:{n}", mapping={"seq": r["i"], "text": r["text"], "summary": r["text"],
                                                          "raw": json.dumps(_doc(r)), "role": r["role"]})


def fact_fields(editor):
    return next(r for r in editor.records() if specs()["T1"].target in r.payload).fields


def check_variants(opener, layout, vol, names, refill):
    """Every offered variant on a fresh store: its place only, C3 ok; then another place's edit
    fails the first variant's C3, and the default edits every place."""
    editor = opener()
    assert editor.variants(specs()["T1"], editor.records()) == names
    for name in names:
        refill()
        result, applied = measure(layout, vol(), t1(name), opener)
        assert result.ok, (name, result.reasons)
        fields = str(fact_fields(opener()))
        assert (fields.count(TAMPERED), fields.count(FACTS["A"])) == (1, len(names) - 1), name
        assert applied.detail["place"] == name
    refill()
    other, _ = c3_of(layout, vol(), t1(names[0]), t1(names[1]), opener)
    assert not other.ok and f"the fact token was not replaced at {names[0]}" in other.reasons, other.reasons
    refill()
    result, _ = measure(layout, vol(), t1(), opener)
    assert result.ok, result.reasons
    return str(fact_fields(opener()))


@pytest.mark.parametrize("kind", sorted(FILE_STORES))
def test_file_backends_offer_and_apply_a_variant_per_place(tmp_path, kind):
    build, names = FILE_STORES[kind]
    state = {"n": 0}

    def vol():
        return tmp_path / str(state["n"])

    def refill():
        state["n"] += 1
        vol().mkdir()
        state["layout"] = build(vol())
    refill()
    layout = state["layout"]
    after_default = check_variants(lambda: open_editor(layout, vol()), layout, vol, names, refill)
    assert FACTS["A"] not in after_default


def test_postgres_offers_and_applies_a_variant_per_place_text_and_jsonb(postgres):
    fill_postgres(postgres)
    opener = lambda: editor_for(PG_LAYOUT, {}, {"db": postgres})  # noqa: E731
    after_default = check_variants(opener, PG_LAYOUT, lambda: None, PG_T1, lambda: fill_postgres(postgres))
    assert FACTS["A"] not in after_default  # the default reaches the jsonb copies too (and passes its C3)


@pytest.mark.parametrize("variant", ["place=doc.role", "place=role"])
def test_postgres_t8_variant_sets_one_declared_place(postgres, variant):
    fill_postgres(postgres)
    opener = lambda: editor_for(PG_LAYOUT, {}, {"db": postgres})  # noqa: E731
    editor = opener()
    assert editor.variants(t8(), editor.records()) == ["place=doc.role", "place=role"]
    before = fact_fields(editor)
    result, _ = measure(PG_LAYOUT, None, t8(variant), opener)
    assert result.ok, result.reasons
    after = fact_fields(opener())
    assert (after["role"] != before["role"], after["doc"]["role"] != before["doc"]["role"]) == \
           (variant == "place=role", variant == "place=doc.role")
    fill_postgres(postgres)
    wrong, _ = c3_of(PG_LAYOUT, None, t8(variant), replace(t8(variant), variant=None), opener)
    assert not wrong.ok and any("changed too" in r for r in wrong.reasons), wrong.reasons


def test_redis_offers_and_applies_a_variant_per_place(redis_url):
    fill_redis(redis_url)
    opener = lambda: editor_for(REDIS_LAYOUT, {}, {"cache": redis_url})  # noqa: E731
    after_default = check_variants(opener, REDIS_LAYOUT, lambda: None, REDIS_T1, lambda: fill_redis(redis_url))
    assert FACTS["A"] not in after_default
