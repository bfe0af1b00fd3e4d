"""memlab driver kit: speak the lab's driver protocol (images/README.md) in a few lines.

Stdlib only, one module. Import it **before** the SUT: the import guards stdout
(the protocol gets a private copy of fd 1; fd 1 and ``sys.stdout`` then point at
stderr, so nothing the SUT prints can corrupt an answer) and starts capturing
signals, so signals raised while the SUT is imported reach the ``open`` answer.

    import memlab_driver as kit
    import my_sut

    class MyDriver(kit.Driver):
        def open(self, volumes, config): self.db = my_sut.open(volumes["store"])
        def write(self, context, text, meta): return {"id": self.db.add(context, text)}
        def read(self, context): return [{"id": r.id, "text": r.text, "meta": {}} for r in self.db.get(context)]

    if __name__ == "__main__":
        kit.serve(MyDriver)
"""

from __future__ import annotations

import io
import json
import logging
import os
import signal as _signal
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any

__all__ = ["Driver", "BadRequest", "Unsupported", "serve", "fixed_paths", "hash_embedding", "dist_version"]


class BadRequest(ValueError):
    """The request (or the configuration it carries) is wrong: a harness fault, ``refused: false``."""


class Unsupported(NotImplementedError):
    """The driver does not offer this op: a harness fault, ``refused: false``."""


class Driver:
    """Base class of a driver: override the ops the SUT offers; the rest answer ``Unsupported``.

    ``self.services`` maps each backend service the profile declares to its URL
    (e.g. ``{"db": "postgresql://memlab@127.0.0.1:5433/postgres"}``), set before ``open``.
    """

    services: dict[str, str] = {}

    def open(self, volumes: dict[str, Path], config: dict) -> None:
        """Open the store through the SUT; raise to refuse (a SUT that checks its store at open)."""
        raise Unsupported("open")

    def describe(self) -> dict:
        """Say what the SUT is: {"sut", "version", "libraries", "capabilities"}."""
        raise Unsupported("describe")

    def write(self, context: str, text: str, meta: dict) -> dict:
        """Write one record through the SUT's write path; return it (at least {"id"})."""
        raise Unsupported("write")

    def read(self, context: str) -> list[dict]:
        """Read a context through the SUT's read path: [{"id", "text", "meta"}], in served order."""
        raise Unsupported("read")

    def erase(self, context: str, record_id: str | None) -> list[str]:
        """Erase one record (or the whole context when ``record_id`` is None); return the ids erased."""
        raise Unsupported("erase")

    def audit(self, context: str) -> dict:
        """Run the SUT's separate audit command: {"ok", "problems", "call"}."""
        raise Unsupported("audit")

    def close(self) -> None:
        """Release the store when the process ends (stdin closed or SIGTERM)."""

    def signal(self, channel: str, message: str, level: str = "WARNING", **fields: Any) -> None:
        """Report a SUT status field or callback as a signal of the current op (channel ``status``)."""
        _CAPTURE.add({"channel": channel, "level": level, "message": str(message), **fields})


# --- signal capture ---------------------------------------------------------------------------

class _Capture(logging.Handler):
    """Root log handler (WARNING and above) and warnings hook, buffering signals for the next answer."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.pending: list[dict] = []
        self._show = warnings.showwarning

    def add(self, item: dict) -> None:
        """Buffer one signal for the answer of the op in progress (or of ``open``)."""
        self.pending.append(item)

    def drain(self) -> list[dict]:
        """Hand over the buffered signals and start afresh."""
        out, self.pending = self.pending, []
        return out

    def emit(self, record: logging.LogRecord) -> None:
        """Keep a log record as a ``log`` signal."""
        try:
            message = record.getMessage()
        except Exception:  # a malformed log call is still a signal
            message = str(record.msg)
        self.add({"channel": "log", "level": record.levelname, "logger": record.name, "message": message})

    def showwarning(self, message, category, filename, lineno, file=None, line=None) -> None:
        """Keep a Python warning as a ``warning`` signal, and still print it to stderr."""
        self.add({"channel": "warning", "level": "WARNING", "category": category.__name__,
                  "message": str(message), "where": f"{filename}:{lineno}"})
        self._show(message, category, filename, lineno, file, line)

    def attach(self) -> None:
        """(Re)attach to the root logger and the warnings module; a SUT may have reset either."""
        root = logging.getLogger()
        if self not in root.handlers:
            root.addHandler(self)
        own = [h for h in root.handlers if h is not self and h is not _ECHO]
        if own and _ECHO in root.handlers:  # the SUT logs to stderr itself: do not echo twice
            root.removeHandler(_ECHO)
        elif not own and _ECHO not in root.handlers:
            root.addHandler(_ECHO)
        if warnings.showwarning is not self.showwarning:
            warnings.showwarning = self.showwarning


_CAPTURE = _Capture()
_ECHO = logging.StreamHandler(sys.stderr)  # keep WARNING+ in the SUT's log (stderr), as lastResort did
_ECHO.setLevel(logging.WARNING)
_ECHO.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
_PROTOCOL_OUT: io.TextIOBase | None = None
_PROTOCOL_IN: io.BufferedIOBase | None = None


def _guard_stdio() -> None:
    """Give the protocol private copies of fd 0/1; point fd 1 at stderr and fd 0 at /dev/null."""
    global _PROTOCOL_OUT, _PROTOCOL_IN
    if _PROTOCOL_OUT is not None:
        return
    sys.stdout.flush()
    _PROTOCOL_OUT = io.open(os.dup(1), "w", encoding="utf-8", newline="\n")
    _PROTOCOL_IN = io.open(os.dup(0), "rb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(os.devnull, encoding="utf-8")


_guard_stdio()
_CAPTURE.attach()


# --- the loop ---------------------------------------------------------------------------------

_OPS = ("open", "describe", "write", "read", "erase", "audit")


class _Session:
    """One driver process: validates requests, calls the driver, shapes answers."""

    def __init__(self, driver_class: type[Driver]):
        self.opened = False
        self.open_error: dict | None = None
        try:
            self.driver: Driver | None = driver_class()
        except Exception as exc:  # the SUT failed while the driver was built: every op is refused
            traceback.print_exc(file=sys.stderr)
            self.driver, self.open_error = None, _error(exc)

    def answer(self, line: bytes) -> dict:
        """Handle one request line and return its answer (never raises)."""
        request: dict = {}
        rid = None
        try:
            request = _parse(line)
            rid = request["id"]
            body = self.run(request)
            answer = {"ok": True, **body}
        except (BadRequest, Unsupported) as exc:
            rid = getattr(exc, "rid", rid)
            kind = "Unsupported" if isinstance(exc, Unsupported) else "BadRequest"
            answer = {"ok": False, "refused": False, "error": {"type": kind, "message": str(exc)}}
        except _Refused as exc:
            answer = {"ok": False, "refused": True, "error": exc.error}
        except Exception as exc:  # the SUT raised: it refused to serve
            traceback.print_exc(file=sys.stderr)
            answer = {"ok": False, "refused": True, "error": _error(exc)}
            if request.get("op") == "open":
                self.open_error = answer["error"]
        return {"id": rid, **answer, "signals": _CAPTURE.drain()}

    def run(self, req: dict) -> dict:
        """Dispatch one validated request to the driver; return the answer's op-specific fields."""
        op = req["op"]
        if self.open_error is not None:
            raise _Refused(self.open_error)
        assert self.driver is not None
        if op == "open":
            if self.opened:
                raise BadRequest("open was already sent to this process")
            volumes = _field(req, "volumes", dict)
            config = _field(req, "config", dict, default={})
            self.driver.services = {str(k): str(v) for k, v in _field(req, "services", dict, default={}).items()}
            self.driver.open({str(k): Path(v) for k, v in volumes.items()}, config)
            self.opened = True
            return {}
        if not self.opened:
            raise BadRequest(f"{op}: send open first")
        if op == "describe":
            return {"result": _describe(self.driver.describe())}
        context = _field(req, "context", str)
        if op == "write":
            rec = self.driver.write(context, _field(req, "text", str), _field(req, "meta", dict, default={}))
            return {"record": _record(rec)}
        if op == "read":
            return {"records": [_record(r) for r in self.driver.read(context)]}
        if op == "erase":
            if "record" not in req:
                raise BadRequest("erase needs record (an id, or null for the whole context)")
            target = req["record"]
            if target is not None and (not isinstance(target, (str, int)) or isinstance(target, bool)):
                raise BadRequest("erase: record must be an id (string) or null")
            erased = self.driver.erase(context, None if target is None else str(target))
            return {"erased": [str(i) for i in erased]}
        return {"audit": _audit(self.driver.audit(context))}

    def close(self) -> None:
        """Let the driver release the store; a failure here only goes to stderr."""
        if self.driver is not None:
            try:
                self.driver.close()
            except Exception:
                traceback.print_exc(file=sys.stderr)


class _Refused(Exception):
    """Raised for every op after ``open`` was refused: the same error again."""

    def __init__(self, error: dict):
        super().__init__(error.get("message", ""))
        self.error = error


def _error(exc: BaseException) -> dict:
    return {"type": type(exc).__name__, "message": str(exc)}


def _parse(line: bytes) -> dict:
    """Decode one request line; a fault raises BadRequest (the answer then echoes id null)."""
    try:
        request = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadRequest(f"not a JSON line: {exc}") from None
    if not isinstance(request, dict):
        raise BadRequest("a request is a JSON object")
    rid = request.get("id")
    if not isinstance(rid, int) or isinstance(rid, bool):
        raise BadRequest("request id must be an integer")
    if request.get("op") not in _OPS:
        raise _BadOp(rid, f"unknown op {request.get('op')!r}; use one of {list(_OPS)}")
    return request


class _BadOp(BadRequest):
    """An unknown op in an otherwise well-formed request: the answer still echoes its id."""

    def __init__(self, rid: int, message: str):
        super().__init__(message)
        self.rid = rid


def _field(req: dict, name: str, kind: type, default: Any = ...) -> Any:
    if name not in req or req[name] is None:
        if default is ...:
            raise BadRequest(f"{req['op']}: missing field {name!r}")
        return default
    if not isinstance(req[name], kind):
        raise BadRequest(f"{req['op']}: field {name!r} must be {kind.__name__}")
    return req[name]


def _record(rec: Any) -> dict:
    if not isinstance(rec, dict) or "id" not in rec:
        raise BadRequest(f"driver returned a record without an id: {rec!r}")
    meta = rec.get("meta") or {}
    return {**rec, "id": str(rec["id"]), "meta": dict(meta)}


def _audit(result: Any) -> dict:
    if not isinstance(result, dict) or not isinstance(result.get("ok"), bool):
        raise BadRequest(f"driver audit must return {{ok, problems, call}}, got {result!r}")
    return {"ok": result["ok"], "problems": [str(p) for p in result.get("problems") or []],
            "call": str(result.get("call", ""))}


def _describe(result: Any) -> dict:
    if not isinstance(result, dict) or not {"sut", "version"} <= set(result):
        raise BadRequest(f"driver describe must return {{sut, version, libraries, capabilities}}, got {result!r}")
    return {"libraries": {}, "capabilities": {}, **result}


def _write(answer: dict) -> None:
    assert _PROTOCOL_OUT is not None
    _PROTOCOL_OUT.write(json.dumps(answer, default=str) + "\n")
    _PROTOCOL_OUT.flush()


def _on_sigterm(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def fixed_paths(volumes: dict[str, Path], label: str) -> dict[str, Path]:
    """The volumes at paths that stay the same across restarts and trials, as a container's mount
    points (``/vol/<name>``) do, for a SUT that keys state by its store's absolute path.

    In a container (``MEMLAB_RUNTIME=docker``) the volumes are returned as they are. Elsewhere each
    volume gets a symlink ``/tmp/memlab-mounts/<MEMLAB_RUN_ID>/<label>/<name>``, re-pointed at
    this start's volume; ``label`` (e.g. the row) keeps rows of one run apart. The SUT must not
    resolve the link (``os.path.abspath`` does not; ``Path.resolve`` would).
    """
    if os.environ.get("MEMLAB_RUNTIME") == "docker":
        return dict(volumes)
    import re
    safe = re.sub(r"[^A-Za-z0-9._+-]", "_", label)
    base = Path("/tmp/memlab-mounts") / os.environ.get("MEMLAB_RUN_ID", "norun") / safe
    base.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, path in volumes.items():
        link, tmp = base / name, base / f".{name}.{os.getpid()}"
        os.symlink(os.path.abspath(path), tmp)
        os.replace(tmp, link)
        out[name] = link
    return out


def dist_version(name: str) -> str | None:
    """The installed version of distribution ``name`` (for ``describe``), or None when it is absent."""
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def hash_embedding(text: str, dims: int = 64) -> list[float]:
    """A deterministic vector of ``dims`` floats in [-0.5, 0.5] from SHA-256 of ``text``: an offline
    stand-in for an embedding model (distinct texts get near-orthogonal vectors; no network, no key)."""
    import hashlib

    raw = b"".join(hashlib.sha256(f"{i}:{text}".encode()).digest() for i in range(dims // 32 + 1))
    return [b / 255.0 - 0.5 for b in raw[:dims]]


def serve(driver_class: type[Driver]) -> None:
    """Run the JSON-lines loop on the guarded stdio until stdin closes (exit 0) or SIGTERM."""
    _signal.signal(_signal.SIGTERM, _on_sigterm)
    _guard_stdio()
    assert _PROTOCOL_IN is not None
    session = _Session(driver_class)
    try:
        for line in _PROTOCOL_IN:
            if not line.strip():
                continue
            _CAPTURE.attach()
            with warnings.catch_warnings():  # a fresh "once per location" registry for every op
                warnings.showwarning = _CAPTURE.showwarning
                answer = session.answer(line)
            _write(answer)
    finally:
        session.close()
    sys.exit(0)
