"""The front-door additions to the protocol (images/README.md, "Front-door additions").

Three ops, sent only to a driver whose profile declares the front door:

- ``frontdoor_open {case, trust_root, fresh}``: the store of one case, on the SUT's volumes. ``fresh``:
  a new, empty store (each case has its own); else the case's store again after a restart.
  ``trust_root`` is the genuine writer's public key (hex), for a SUT that takes one.
- ``frontdoor_write {scope, text, label, signature, tags}``: hand one write to the SUT's own write
  path, the label and signature to the SUT's own provenance mechanism (the profile's
  ``frontdoor.label``/``signature``). Answers ``result: {accepted, stored}``; the SUT raising is a
  refusal (the write was not accepted).
- ``frontdoor_read {scope, query, k, tag}``: what the SUT serves; each record ``{text, marker}``, the
  marker being the SUT's own flag of an untrusted record (null when it gives none).
- ``frontdoor_message {scope, text, label, tags}``: only for a row whose profile names a signature
  mechanism: the bytes the SUT verifies a signature over, built as the SUT builds them (``result:
  {message: hex}``). The lab's genuine writer and its adversary sign these bytes, each with its own
  key; ``frontdoor_write`` then carries the signature and ``signer`` (the signing key's public half,
  hex, or null), set as ``self.frontdoor_signer`` before the driver's ``frontdoor_write`` is called.

A refusal must be the SUT's: an exception whose innermost frame is in the driver's own file or in the
kit is the driver failing, a fault (``refused: false``), never a refusal -- a driver that crashed on the
attacker's writes alone would otherwise read as a SUT that rejected them.

``scope`` is ``{tenant, user, session}``, each a string, an integer or null, exactly as the lab sent
them: the driver hands them to the SUT as they are. The driver never verifies a signature, never reads
a label to decide anything and never filters by scope: each of those is the SUT's to do or not.
Imports only the standard library and ``protocol``.
"""

from __future__ import annotations

import json

import inspect
import re
import traceback
from pathlib import Path
from typing import Any

from memlab_driver.protocol import BadRequest, Unsupported, field

_CASE = re.compile(r"[A-Za-z0-9_-]{1,64}")
_HEX = re.compile(r"(?:[0-9a-f]{2}){1,512}")  # a key or a signature
MAX_TAGS = 32


class FrontdoorOps:
    """The front-door part of :class:`~memlab_driver.Driver`: override the three to take part, and
    ``frontdoor_message`` where the SUT verifies signatures of its own format."""

    #: The signing key's public half a ``frontdoor_write`` names (raw bytes), or None: set before each.
    frontdoor_signer: bytes | None = None  # not ``signer``: a driver may keep a key of its own by that name

    def frontdoor_open(self, case: str, trust_root: bytes, fresh: bool) -> None:
        """Open the case's store: a new, empty one when ``fresh``, else the one kept on the volumes."""
        raise Unsupported("frontdoor_open")

    def frontdoor_write(self, scope: dict, text: str, label: str, signature: bytes | None,
                        tags: list[str]) -> dict:
        """One write through the SUT's own write path; return ``{"accepted": bool, "stored": {...}}``
        (what the SUT answered it keeps), or raise what the SUT raised."""
        raise Unsupported("frontdoor_write")

    def frontdoor_message(self, scope: dict, text: str, label: str, tags: list[str]) -> bytes:
        """The bytes the SUT verifies a signature over for this write, as the SUT builds them."""
        raise Unsupported("frontdoor_message")

    def frontdoor_read(self, scope: dict, query: str, k: int, tag: str | None) -> list[dict]:
        """What the SUT serves this scope for ``query`` (at most ``k`` where it takes a limit): each
        ``{"text": ..., "marker": None or the SUT's own untrusted flag}``."""
        raise Unsupported("frontdoor_read")


def _scope(req: dict) -> dict[str, Any]:
    found = field(req, "scope", dict)
    if set(found) != {"tenant", "user", "session"} or not all(
            v is None or isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool))
            for v in found.values()):
        raise BadRequest(f"{req['op']}: scope must be {{tenant, user, session}}, each a string, an integer or null")
    return dict(found)


def _hex(req: dict, name: str) -> bytes | None:
    value = req.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        raise BadRequest(f"{req['op']}: {name} must be lower-case hex (at most 512 bytes) or null")
    return bytes.fromhex(value)


KIT = Path(__file__).resolve().parent


def case_store(base: Path, case: str, fresh: bool, name: str | None = None) -> Path:
    """``<base>/frontdoor/<case>[/<name>]``: a case's own store, kept after the row for the lab's read-back;
    its folder made. A fresh case whose store exists, or a reopened one whose store is gone, is refused."""
    path = Path(base) / "frontdoor" / case
    path = path / name if name else path
    if fresh == path.exists():
        raise BadRequest(f"frontdoor_open {case}: fresh={fresh} but {path} {'exists' if fresh else 'does not exist'}")
    (path.parent if name else path).mkdir(parents=True, exist_ok=True)
    return path


def scope_key(scope: dict) -> str:
    """A front-door scope's one key where a SUT has a single context: the JSON array [tenant, user,
    session] of the parts as sent (injective: ints stay numbers, a part not given is null)."""
    return json.dumps([scope["tenant"], scope["user"], scope["session"]], ensure_ascii=False, separators=(",", ":"))


#: The longest PostgreSQL identifier, in bytes.
_PG_NAME = 63


def case_schema_name(case: str) -> str:
    """``frontdoor_<case>``: a case's own PostgreSQL schema, as ``case_store`` gives a folder."""
    schema = f"frontdoor_{case}"
    if len(schema.encode()) > _PG_NAME:
        raise BadRequest(f"frontdoor_open {case}: a PostgreSQL schema name holds at most {_PG_NAME} bytes")
    return schema


def check_case_schema(case: str, schema: str, fresh: bool, exists: bool) -> None:
    """Refuse a fresh case whose schema exists, or a reopened one whose schema is gone."""
    if fresh == bool(exists):
        raise BadRequest(f"frontdoor_open {case}: fresh={fresh} but schema {schema} "
                         f"{'exists' if exists else 'does not exist'}")


def psycopg_case_schema(url: str, case: str, fresh: bool) -> str:
    """The case's own schema on the PostgreSQL server at ``url`` (psycopg 3, imported only here): made on a
    fresh open, the kept one after a restart, refused as ``check_case_schema`` says; kept after the row."""
    import psycopg
    from psycopg import sql

    schema = case_schema_name(case)
    with psycopg.connect(url, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone() is not None
        check_case_schema(case, schema, fresh, exists)
        if fresh:
            conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    return schema


def on_schema(url: str, schema: str) -> str:
    """``url`` with ``schema`` first on its search_path: a connection's tables made and read there."""
    from psycopg.conninfo import make_conninfo

    return make_conninfo(url, options=f"-c search_path={schema}")


def _raised_by_driver(exc: BaseException, driver: FrontdoorOps) -> bool:
    """Whether the innermost frame of ``exc`` is in the driver's own file or in the kit."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return False
    where = Path(frames[-1].filename).resolve()
    try:
        own = Path(inspect.getsourcefile(type(driver)) or "").resolve()
    except TypeError:
        own = None
    return where == own or KIT in where.parents


def _sut_call(driver: FrontdoorOps, op: str, call: Any, *args: Any) -> Any:
    """``call(*args)``; an exception the driver itself raised is a fault, the SUT's passes as a refusal."""
    try:
        return call(*args)
    except (BadRequest, Unsupported):
        raise
    except Exception as exc:
        if _raised_by_driver(exc, driver):
            raise BadRequest(f"{op}: the driver failed, not the SUT: {type(exc).__name__}: {exc}") from exc
        raise


def serve(driver: FrontdoorOps, req: dict) -> dict:
    """Serve one front-door op (the request's op names which)."""
    op = req["op"]
    if op == "frontdoor_open":
        case = field(req, "case", str)
        if not _CASE.fullmatch(case):
            raise BadRequest("frontdoor_open: case must be 1-64 letters, digits, '_' or '-'")
        trust_root = _hex(req, "trust_root")
        if trust_root is None:
            raise BadRequest("frontdoor_open: trust_root (hex) is required")
        driver.frontdoor_open(case, trust_root, field(req, "fresh", bool))
        return {}
    scope = _scope(req)
    if op in ("frontdoor_write", "frontdoor_message"):
        tags = field(req, "tags", list, default=[])
        if len(tags) > MAX_TAGS or not all(isinstance(t, str) for t in tags):
            raise BadRequest(f"{op}: tags must be at most {MAX_TAGS} strings")
    if op == "frontdoor_message":
        message = driver.frontdoor_message(scope, field(req, "text", str), field(req, "label", str), list(tags))
        if not isinstance(message, bytes) or not 0 < len(message) <= 1 << 20:
            raise BadRequest("the driver's frontdoor_message must return the message as bytes (at most 1 MiB)")
        return {"result": {"message": message.hex()}}
    if op == "frontdoor_write":
        driver.frontdoor_signer = _hex(req, "signer")
        out = _sut_call(driver, op, driver.frontdoor_write, scope, field(req, "text", str),
                        field(req, "label", str), _hex(req, "signature"), list(tags))
        if not isinstance(out, dict) or not isinstance(out.get("accepted"), bool):
            raise BadRequest("the driver's frontdoor_write must return {'accepted': bool, 'stored': ...}")
        return {"result": {"accepted": out["accepted"], "stored": out.get("stored")}}
    k = field(req, "k", int)
    if isinstance(k, bool) or not 1 <= k <= 1000:
        raise BadRequest("frontdoor_read: k must be an integer from 1 to 1000")
    tag = field(req, "tag", str, default=None)
    records = _sut_call(driver, op, driver.frontdoor_read, scope, field(req, "query", str), k, tag)
    if not isinstance(records, list) or not all(
            isinstance(r, dict) and isinstance(r.get("text"), str)
            and (r.get("marker") is None or isinstance(r.get("marker"), str)) for r in records):
        raise BadRequest("the driver's frontdoor_read must return a list of {'text': str, 'marker': str or None}")
    return {"records": [{"text": r["text"], "marker": r.get("marker")} for r in records]}
