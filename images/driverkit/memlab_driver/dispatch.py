"""One driver process: validate a request, call the driver's op, shape the answer.

:class:`Session` never raises out of :meth:`Session.answer`: a fault answers ``refused:
false``, an exception of the SUT ``refused: true``, and a refused ``open`` refuses every later
op with the same error. Imports only the standard library and the kit's other modules.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

from memlab_driver import fork_placeholder, frontdoor, lifecycle
from memlab_driver.capture import CAPTURE
from memlab_driver.driver import Driver
from memlab_driver.protocol import BadRequest, Refused, Unsupported, audit, describe, error, field, parse, record


class Session:
    """One driver process: validates requests, calls the driver, shapes answers."""

    def __init__(self, driver_class: type[Driver]):
        self.opened = False
        self.open_error: dict | None = None
        try:
            self.driver: Driver | None = driver_class()
        except Exception as exc:  # the SUT failed while the driver was built: every op is refused
            traceback.print_exc(file=sys.stderr)
            self.driver, self.open_error = None, error(exc)

    def answer(self, line: bytes) -> dict:
        """Handle one request line and return its answer (never raises)."""
        request: dict = {}
        rid = None
        try:
            request = parse(line)
            rid = request["id"]
            body = self.run(request)
            answer = {"ok": True, **body}
        except (BadRequest, Unsupported) as exc:
            rid = getattr(exc, "rid", rid)
            kind = "Unsupported" if isinstance(exc, Unsupported) else "BadRequest"
            answer = {"ok": False, "refused": False, "error": {"type": kind, "message": str(exc)}}
        except Refused as exc:
            answer = {"ok": False, "refused": True, "error": exc.error}
        except Exception as exc:  # the SUT raised: it refused to serve
            traceback.print_exc(file=sys.stderr)
            answer = {"ok": False, "refused": True, "error": error(exc)}
            if request.get("op") == "open":
                self.open_error = answer["error"]
        return {"id": rid, **answer, "signals": CAPTURE.drain()}

    def run(self, req: dict) -> dict:
        """Dispatch one validated request to the driver; return the answer's op-specific fields."""
        op = req["op"]
        if self.open_error is not None:
            raise Refused(self.open_error)
        driver = self.driver
        assert driver is not None
        if op == "open":
            return self._open(driver, req)
        if not self.opened:
            raise BadRequest(f"{op}: send open first")
        if op == "describe":
            return {"result": describe(driver.describe())}
        if op == "advance_time":
            return lifecycle.advance_time(driver, req)
        if op.startswith("frontdoor_"):
            return frontdoor.serve(driver, req)
        context = field(req, "context", str)
        lifecycle.set_additions(driver, req)
        if op == "update":
            return lifecycle.update(driver, context, req)
        if op == "write":
            rec = driver.write(context, field(req, "text", str), field(req, "meta", dict, default={}))
            return {"record": record(rec)}
        if op == "read":
            return {"records": [record(r) for r in driver.read(context)]}
        if op == "erase":
            return _erase(driver, context, req)
        return {"audit": audit(driver.audit(context))}

    def _open(self, driver: Driver, req: dict) -> dict:
        """Serve ``open`` (once per process): set services, volumes and config, then open the store."""
        if self.opened:
            raise BadRequest("open was already sent to this process")
        volumes = field(req, "volumes", dict)
        config = field(req, "config", dict, default={})
        driver.services = {str(k): str(v) for k, v in field(req, "services", dict, default={}).items()}
        driver.volumes = {str(k): Path(v) for k, v in volumes.items()}
        driver.config = config
        driver.open(dict(driver.volumes), config)
        if fork_placeholder.pending():
            raise RuntimeError("the fork server preloaded the SUT under its placeholder and the driver's open did "
                               "not rebind it (fork_placeholder.rebind): the start would keep the server's paths")
        self.opened = True
        return {}

    def close(self) -> None:
        """Let the driver release the store; a failure here only goes to stderr."""
        if self.driver is not None:
            try:
                self.driver.close()
            except Exception:
                traceback.print_exc(file=sys.stderr)


def _erase(driver: Driver, context: str, req: dict) -> dict:
    """Serve ``erase``: ``record`` is required (an id, or null for the whole context)."""
    if "record" not in req:
        raise BadRequest("erase needs record (an id, or null for the whole context)")
    target = req["record"]
    if target is not None and (not isinstance(target, (str, int)) or isinstance(target, bool)):
        raise BadRequest("erase: record must be an id (string) or null")
    erased = driver.erase(context, None if target is None else str(target))
    return {"erased": [str(i) for i in erased]}
