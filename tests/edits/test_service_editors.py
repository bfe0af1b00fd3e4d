"""The PostgreSQL and Redis editors on real servers (started by the lab's own service
runner on loopback: the fixtures in conftest.py): what is refused without a server; each operation's
postcondition on them is the conformance suite's (test_conformance.py)."""

import psycopg
import pytest
import redis
from edit_stores import seed

from edits.base import editor_for
from edits.layout import parse_layout
from edits.model import EditError



PG_LAYOUT = parse_layout({"backend": "postgres", "volume": "pgdata", "service": "db", "table": "memories",
                          "context": "session", "identity": ["id"], "order": "seq", "payload": "body",
                          "metadata": {"role": "role", "source": "source", "owner": "owner",
                                       "timestamp": "created_at"}})
REDIS_LAYOUT = parse_layout({"backend": "redis", "volume": "data", "service": "cache",
                             "key": "mem:{context}:rec:{id}", "identity": [], "order": "seq", "payload": "text",
                             "metadata": {"role": "role", "source": "source"}})


def fill_postgres(url):
    with psycopg.connect(url) as conn:
        conn.execute("DROP TABLE IF EXISTS memories")
        conn.execute("CREATE TABLE memories (id uuid PRIMARY KEY, session text NOT NULL, seq int NOT NULL, "
                     "body text, role text, source text, owner text, created_at timestamptz, "
                     "UNIQUE (session, seq))")
        for r in seed():
            conn.execute("INSERT INTO memories VALUES (%s,%s,%s,%s,%s,%s,%s,%s)",
                         (r["uid"], r["ctx"], r["i"] * 10, r["text"], r["role"], r["source"], r["owner"], r["ts"]))


def fill_redis(url):
    client = redis.Redis.from_url(url)
    client.flushall()
    client.set("mem:counter", 10)  # not a record: no {id} part matches a hash
    for n, r in enumerate(seed()):
        client.hset(f"mem:{r['ctx']}:rec:{n}", mapping={"seq": r["i"], "text": r["text"], "role": r["role"],
                                                        "source": r["source"]})


def test_service_editor_needs_its_service():
    with pytest.raises(ValueError, match="needs service 'db' running"):
        editor_for(PG_LAYOUT, {}, {})


def test_unreachable_server_is_an_edit_error():
    with pytest.raises(EditError, match="postgres at"):
        editor_for(PG_LAYOUT, {}, {"db": "postgresql://memlab@127.0.0.1:1/postgres"}).records()
