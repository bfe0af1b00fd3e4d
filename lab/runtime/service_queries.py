"""What a backend server answers: one value from PostgreSQL, and Redis's data directory and version.
Each raises ConnectionError while the server is not up yet (``services.wait_ready`` polls on it)."""

from __future__ import annotations


def pg_query(url: str, sql: str, *before: str) -> str:
    """One value from the PostgreSQL server at ``url``, after the statements ``before``, in one
    transaction (ConnectionError while it is not up)."""
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            for statement in before:
                conn.execute(statement)
            return str(conn.execute(sql).fetchone()[0])
    except psycopg.OperationalError as exc:
        raise ConnectionError(str(exc)) from exc


def redis_info(url: str) -> tuple[str, str]:
    """(data directory, version) of the Redis server at ``url`` (ConnectionError while it is not up)."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=5, decode_responses=True)
        if client.info("persistence").get("loading"):  # CONFIG GET and INFO answer while the AOF loads
            raise ConnectionError("the server is still loading its dataset")
        return client.config_get("dir")["dir"], client.info("server")["redis_version"]
    except (redis.ConnectionError, redis.TimeoutError) as exc:  # a server slow to answer (load): not up yet
        raise ConnectionError(str(exc)) from exc
    except redis.ResponseError as exc:  # loading the AOF: not up yet
        raise ConnectionError(str(exc)) from exc
