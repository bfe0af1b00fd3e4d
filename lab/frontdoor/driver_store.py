"""The front door over a row's SUT driver: the ``MemoryStore`` protocol through the front-door ops.

One SUT process serves a whole row (``SutProcess``, as the lifecycle gate runs it; started with the first
case, so its logs go to a set already claimed): ``fresh`` opens the next case's own empty store
(``frontdoor_open``, a new case name each time), so no case sees another's memories, and scope ids reach
the SUT exactly as the fixtures give them (no namespace prefix folds an integer id into a string).
``restart`` stops the SUT and starts it anew on the same volumes, reopening the current case: the
restarted position. ``prove`` stops the SUT after a row's cases and reads each case's store back with the
generic editors (the row's ``frontdoor.stored``: proven stored, C3; a store in a server is read with the
server started alone); the next row starts it again. A SUT that raises on a write refused it, on a read
served nothing (the last write's error is kept in ``refusal``); an answer of the wrong shape or a driver
fault is a harness error, never a verdict.
"""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Any

from lab.frontdoor.observations import Served, Stored
from lab.frontdoor.scope import Scope
from lab.frontdoor.stored import StoredSpec, read_case
from lab.lifecycle.adapters import AdapterError
from lab.lifecycle.adapters.process import SutProcess
from lab.profile import Profile
from lab.runtime import Runtime
from lab.runtime.housekeeping import RunRegistry

MAX_RECORDS = 1000  # records one read may serve


class DriverStore:
    """A row's SUT behind the front-door ops; ``fresh`` is the runner's store factory."""

    def __init__(self, profile: Profile, runtime: Runtime, registry: RunRegistry, logs_dir: Path | None = None):
        if profile.frontdoor is None:
            raise ValueError(f"{profile.row}: the front door does not measure this row (no frontdoor block)")
        self.profile, self.spec = profile, profile.frontdoor
        self.sut = SutProcess(profile, runtime, registry, logs_dir)
        self.cases = 0
        self.trust_root = b""
        self.refusal: str | None = None  # why the SUT refused the last write (None: it did not)

    def start(self) -> DriverStore:
        self.sut.start()
        return self

    def close(self) -> None:
        self.sut.stop()

    def fresh(self, trust_root: bytes) -> DriverStore:
        """The next case's own empty store, trusting ``trust_root`` where the SUT takes one."""
        if self.sut.client is None:  # started with a row's first case, inside the set
            self.start()
        self.cases += 1
        self.trust_root = trust_root
        self._call("frontdoor_open", case=self.case, trust_root=trust_root.hex(), fresh=True)
        return self

    @property
    def case(self) -> str:
        return f"case-{self.cases}"

    def restart(self) -> dict[str, float]:
        """Stop the SUT, start it on the same volumes and reopen the current case's store."""
        times = self.sut.restart()
        self._call("frontdoor_open", case=self.case, trust_root=self.trust_root.hex(), fresh=False)
        return times

    def prove(self, attacks: dict[str, list[str]]) -> dict[str, Stored]:
        """Stop the SUT and read each case's store back (``attacks``: case -> the attacker's texts in it)."""
        self.sut.stop()
        spec = self.spec.stored
        # a store in a server: the server started alone, the driver stopped; a store in files: nothing to start
        with self.sut.services_alone() if spec.in_service else nullcontext() as urls:
            return {case: _read_back(spec, self.sut.volumes, case, texts, urls) for case, texts in attacks.items()}

    def write(self, scope: Scope, text: str, label: str, signature: bytes | None,
              tags: frozenset[str] = frozenset(), signer: bytes | None = None) -> bool:
        answer = self.sut.call("frontdoor_write", scope=scope.model_dump(), text=text, label=label,
                               signature=signature.hex() if signature is not None else None,
                               signer=signer.hex() if signer is not None else None, tags=sorted(tags))
        self.refusal = None if answer["ok"] else str((answer.get("error") or {}).get("message", ""))[:500]
        if not answer["ok"]:  # the SUT raised: it refused the write
            return False
        return bool(answer["result"]["accepted"])

    def message(self, scope: Scope, label: str, text: str, tags: frozenset[str]) -> bytes:
        """The bytes the SUT verifies a signature over, as the driver says the SUT builds them (the row's
        ``frontdoor.signature``): the genuine writer and the adversary sign these."""
        answer = self._call("frontdoor_message", scope=scope.model_dump(), text=text, label=label, tags=sorted(tags))
        return bytes.fromhex(answer["result"]["message"])

    def read(self, scope: Scope, query: str, k: int, tag: str | None = None) -> list[Served]:
        answer = self.sut.call("frontdoor_read", scope=scope.model_dump(), query=query, k=k, tag=tag)
        if not answer["ok"]:  # the SUT raised: it served nothing (a control then fails: no verdict)
            return []
        records = answer["records"]
        if len(records) > MAX_RECORDS:
            raise AdapterError(f"{self.profile.row}: frontdoor_read served {len(records)} records, more than "
                               f"{MAX_RECORDS}\n  fix: the driver serves what the SUT serves for k={k}")
        return [Served(text=r["text"], marker=r["marker"]) for r in records]

    def _call(self, op: str, **fields: Any) -> dict[str, Any]:
        answer = self.sut.call(op, **fields)
        if not answer["ok"]:
            raise AdapterError(f"{self.profile.row}: the SUT refused {op}: {answer.get('error')}{self.sut.log_note()}")
        return answer


def _read_back(spec: StoredSpec, volumes: dict[str, Path], case: str, texts: list[str],
               services: dict[str, str] | None = None) -> Stored:
    """One case's store read back; a store the editor cannot read is said, and proves nothing."""
    try:
        records, error = read_case(spec, volumes, case, texts, services), None
    except Exception as exc:  # the editor's or the layout's failure: the case is not proven, the row goes on
        records, error = (), f"{type(exc).__name__}: {exc}"[:500]
    return Stored(case=case, label=spec.label is not None, signature=spec.signature is not None,
                  records=records, error=error)
