"""A PostgreSQL table like Letta's block table: ordered by a timestamp column (created_at), with a json
column (metadata_) psycopg reads as a dict, metadata read from a column or from a path inside it. The editor reorders (T4) and appends (T5) with date-time values
the server takes, and writes a copied or forged row's json back as JSON (T5-T7), the other edits as usual."""

import psycopg
import pytest
from edit_stores import check, seed, specs

from edits.base import editor_for
from edits.layout import parse_layout

BASE = {"backend": "postgres", "volume": "pgdata", "service": "db", "table": "blocks", "context": "label",
        "identity": ["id"], "order": "created_at", "payload": "value"}
LAYOUTS = {  # metadata in a column, or at a path inside the json column (Letta's block metadata)
    "owner": parse_layout({**BASE, "metadata": {"owner": "owner"}}),
    "role": parse_layout({**BASE, "metadata": {"role": {"field": "metadata_", "path": ["role"]},
                                               "source": {"field": "metadata_", "path": ["source"]}}}),
}


def fill(url):
    with psycopg.connect(url) as conn:
        conn.execute("DROP TABLE IF EXISTS blocks")
        conn.execute("CREATE TABLE blocks (id text PRIMARY KEY, label text NOT NULL, value text NOT NULL, "
                     "owner text, created_at timestamptz DEFAULT now(), metadata_ json, tags jsonb)")
        for r in seed():
            conn.execute("INSERT INTO blocks VALUES (%s, %s, %s, %s, %s, %s, %s)",
                         (f"block-{r['uid']}", r["ctx"], r["text"], r["owner"], r["ts"],
                          f'{{"role": "{r["role"]}", "source": "{r["source"]}"}}', '["x", {"n": 1}]'))


@pytest.mark.parametrize("meta", sorted(LAYOUTS))
@pytest.mark.parametrize("case", ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"))
def test_edits_land_on_a_table_ordered_by_a_timestamp(postgres, case, meta):
    fill(postgres)
    layout = LAYOUTS[meta]
    editor = editor_for(layout, {}, {"db": postgres})
    before = editor.records()
    assert {r.metadata[meta] for r in before} == ({"alice", "bob"} if meta == "owner" else {"user", "assistant"})
    editor.apply(specs(meta)[case])
    after = editor_for(layout, {}, {"db": postgres}).records()
    check(layout, specs(meta)[case], before, after)
    with psycopg.connect(postgres) as conn:  # every row's json still JSON of the same shape
        for meta, tags in conn.execute("SELECT metadata_, tags FROM blocks"):
            assert set(meta) == {"role", "source"} and tags == ["x", {"n": 1}]
