"""The :class:`Driver` base class: the ops a driver overrides, erasure defaults and helpers.

Imports only the standard library and the kit's ``capture``, ``protocol``, ``lifecycle`` and ``frontdoor``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memlab_driver.capture import CAPTURE
from memlab_driver.frontdoor import FrontdoorOps
from memlab_driver.lifecycle import LifecycleOps
from memlab_driver.protocol import BadRequest, Unsupported

_UNSET: Any = object()


class Driver(LifecycleOps, FrontdoorOps):
    """Base class of a driver: override the ops the SUT offers; the rest answer ``Unsupported``.

    ``self.services`` maps each backend service the profile declares to its URL
    (e.g. ``{"db": "postgresql://memlab@127.0.0.1:5433/postgres"}``); ``self.volumes`` and
    ``self.config`` are ``open``'s arguments (for :meth:`need_volumes` and :meth:`choice`).
    All three are set before ``open``. The lifecycle ops (``update``, ``advance_time``) and
    ``self.scope``/``self.query`` come from :class:`~memlab_driver.lifecycle.LifecycleOps`, the
    front-door ops from :class:`~memlab_driver.frontdoor.FrontdoorOps`.
    """

    services: dict[str, str] = {}
    volumes: dict[str, Path] = {}
    config: dict = {}

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
        """Erase one record (or the whole context when ``record_id`` is None); return the ids erased.

        By default it calls :meth:`erase_record` or :meth:`erase_context`: override those (or this)."""
        if record_id is None:
            return self.erase_context(context)
        erased = self.erase_record(context, record_id)
        return [record_id] if erased is None else erased

    def erase_record(self, context: str, record_id: str) -> list[str] | None:
        """The SUT's erasure of one record (``erase`` with an id); the ids erased, or None for just that one."""
        raise Unsupported(_erasure_gap(self, "erase_context", "whole contexts", "context"))

    def erase_context(self, context: str) -> list[str]:
        """The SUT's erasure of a whole context (``erase`` with ``record: null``); return the ids erased
        (read them first: ``ids = [r["id"] for r in self.read(context)]``)."""
        raise Unsupported(_erasure_gap(self, "erase_record", "single records", "record"))

    def audit(self, context: str) -> dict:
        """Run the SUT's separate audit command: {"ok", "problems", "call"}."""
        raise Unsupported("audit")

    def close(self) -> None:
        """Release the store when the process ends (stdin closed or SIGTERM)."""

    def signal(self, channel: str, message: str, level: str = "WARNING", **fields: Any) -> None:
        """Report a SUT status field or callback as a signal of the current op (channel ``status``)."""
        CAPTURE.add({"channel": channel, "level": level, "message": str(message), **fields})

    def need_volumes(self, *names: str, why: str = "") -> list[Path]:
        """The paths of the named volumes, in order; a BadRequest naming every one the profile lacks."""
        missing = [n for n in names if n not in self.volumes]
        if missing:
            because = f" ({why})" if why else ""
            raise BadRequest(f"needs volume(s) {', '.join(missing)}{because}; the profile declares "
                             f"{sorted(self.volumes) or 'none'}: add volumes: {{{missing[0]}: {{adversary: ...}}}}")
        return [Path(self.volumes[n]) for n in names]

    def choice(self, name: str, choices: tuple, default: Any = _UNSET) -> Any:
        """``config[name]`` (``default`` when absent), which must be one of ``choices``; else a BadRequest."""
        value = self.config.get(name, default)
        if value is _UNSET:
            raise BadRequest(f"config.{name} is missing: set configuration.{name} to one of {list(choices)}")
        if value not in choices:
            hint = " (YAML reads on/off/yes/no as booleans: quote the value)" if isinstance(value, bool) else ""
            raise BadRequest(f"config.{name} {value!r}: use one of {list(choices)}{hint}")
        return value


def _erasure_gap(driver: Driver, other: str, kind: str, capability: str) -> str:
    """Why an erase is unsupported: the driver erases only the other kind, or not at all."""
    if getattr(type(driver), other) is getattr(Driver, other):
        return "erase"
    return f"this driver erases {kind} only (the profile's capabilities.erasure: {capability})"
