"""Erasure at rest: after a delete, are the deleted value's bytes still in the SUT's raw volumes?

A storage finding of its own, beside the behavioural ``deletion_residue``: never folded into
it, never part of the gate. Observations first: the runner scans and saves what it found in
the delete's step entry (``erasure_at_rest``); derive only sums the saved scans (``summarise``),
so verify recomputes that sum from them. No claim about backups or copies outside the volumes.

**When.** After each applied ``delete`` and ``rescope`` step (for a rescope, after its write half):
in the live position right after the acknowledgement, the SUT running; in the restarted
position with the SUT and its services stopped, before the restart.

**What.** Every regular file of every volume the adapter exposes (``adapter.volumes()``; an HTTP
shim exposes none: ``not_measured``), symlinks not followed, files over 256 MiB skipped (listed),
read as raw bytes with generic tooling (no SUT code, no format decoded), for each value's UTF-8
bytes and, where it differs (non-ASCII, quotes, backslashes), its JSON-escaped form
(``json.dumps``, ASCII-only, without the quotes).

**Attribution.** The values a step deletes are its (scope, key)'s entries not deleted yet, current
and superseded alike. One is looked for only when a hit could mean nothing but this delete left
it; otherwise it is ``not_attributable``, with the reason:

1. in this scenario's ledger after the step, no undeleted entry holds it or a value containing
   it (a value rescoped elsewhere or still current in another scope is no residue; a superseded
   value that was not deleted is history, not a residue);
2. no other scenario of the pack writes it or a value containing it (one store serves the pack);
3. this scenario has not run on this store before (an earlier seed wrote the same values).

**Verdict per delete.** ``present`` (an attributable value's bytes were found: every hit
``{volume, file, offset, encoding}``, ``file`` relative to the volume), ``not_found`` (with what
was scanned: files, bytes), ``not_attributable`` or ``not_measured``. ``not_found`` is never
"proven gone" (``NOT_DECODED``). Example::

    >>> import tempfile
    >>> vol = Path(tempfile.mkdtemp())
    >>> _ = (vol / "store.json").write_bytes(b'{"text": "cashew allergy code AL-93", "erased": true}')
    >>> found = scan_volumes({"store": vol}, ["cashew allergy code AL-93", "pescatarian plan PX-12"])
    >>> [(v["status"], [(h["file"], h["offset"], h["encoding"]) for h in v["hits"]]) for v in found["values"]]
    [('present', [('store.json', 10, 'utf-8')]), ('not_found', [])]
    >>> found["scanned"]["files"], found["scanned"]["bytes"]
    (1, 53)
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

MAX_FILE = 256 * 1024 * 1024
MAX_HITS = 100  # kept per value (every hit is counted)
CHUNK = 1 << 20
NOT_DECODED = ("not found by a raw byte scan; compressed or encoded content (e.g. LZF strings in a Redis "
               "dump, compressed Lance pages, pickled points) is not decoded")
WHEN = {"live": "right after the acknowledgement, the SUT running",
        "restarted": "the SUT and its services stopped, before the restart"}
NO_VOLUMES = "the adapter exposes no volumes (an HTTP shim's storage is not the lab's to read)"
STATUSES = ("present", "not_found", "not_attributable", "not_measured")


def needles(value: str) -> dict[str, bytes]:
    """The byte strings looked for: UTF-8, plus the JSON-escaped form where it differs."""
    out = {"utf-8": value.encode("utf-8")}
    escaped = json.dumps(value)[1:-1].encode("ascii")
    if escaped != out["utf-8"]:
        out["json-escaped"] = escaped
    return out


def _files(volumes: Mapping[str, Path], unreadable: list[dict[str, str]]) -> Iterable[tuple[str, Path, str]]:
    """(volume, path, path relative to the volume) of every file, sorted; links not followed, and
    a folder that cannot be listed goes to ``unreadable``."""
    for name in sorted(volumes):
        root = Path(volumes[name])

        def note(exc: OSError, volume: str = name, base: Path = root) -> None:
            unreadable.append({"volume": volume, "file": os.path.relpath(exc.filename or base, base),
                               "reason": exc.strerror or str(exc)})

        for dirpath, dirnames, filenames in os.walk(root, onerror=note):
            dirnames.sort()
            for leaf in sorted(filenames):
                path = Path(dirpath) / leaf
                yield name, path, path.relative_to(root).as_posix()


def _find(path: Path, wanted: dict[tuple[int, str], bytes]) -> list[tuple[int, str, int, bytes]]:
    """Every (value index, encoding, offset, context) in one file, read in bounded chunks."""
    overlap = max(len(n) for n in wanted.values()) - 1
    found, tail, base = [], b"", 0
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            buf, start = tail + chunk, base - len(tail)
            for (index, encoding), needle in wanted.items():
                at = buf.find(needle)
                while at != -1:
                    if at + len(needle) > len(tail):  # wholly inside the tail: found last round
                        found.append((index, encoding, start + at, buf[max(0, at - 32):at + len(needle) + 32]))
                    at = buf.find(needle, at + 1)
            base += len(chunk)
            tail = buf[-overlap:] if overlap else b""
    return found


def scan_volumes(volumes: Mapping[str, Path], values: Sequence[str], max_file: int = MAX_FILE) -> dict[str, Any]:
    """Scan every file of the volumes for each value; per value its status and hits, and what was scanned."""
    wanted = {(i, enc): needle for i, value in enumerate(values) for enc, needle in needles(value).items()}
    hits: list[list[dict[str, Any]]] = [[] for _ in values]
    counts = [0] * len(values)
    scanned: dict[str, Any] = {"volumes": sorted(volumes), "files": 0, "bytes": 0, "skipped": [], "unreadable": []}
    for volume, path, rel in _files(volumes, scanned["unreadable"]):
        try:
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode):
                continue
            if st.st_size > max_file:
                scanned["skipped"].append({"volume": volume, "file": rel, "size": st.st_size,
                                           "reason": f"over {max_file // (1024 * 1024)} MiB: not scanned"})
                continue
            found = _find(path, wanted) if wanted else []
        except OSError as exc:  # gone since the listing (a live SUT replaced it), or not readable
            scanned["unreadable"].append({"volume": volume, "file": rel, "reason": exc.strerror or str(exc)})
            continue
        scanned["files"] += 1
        scanned["bytes"] += st.st_size
        for index, encoding, offset, context in found:
            counts[index] += 1
            if len(hits[index]) < MAX_HITS:
                hits[index].append({"volume": volume, "file": rel, "offset": offset, "encoding": encoding,
                                    "context": repr(context)[2:-1]})
    out = [{"value": v, "status": "present" if hits[i] else "not_found", "hits": hits[i], "hit_count": counts[i]}
           for i, v in enumerate(values)]
    return {"values": out, "scanned": scanned}


class ErasureProbe:
    """Erasure at rest over one pack run on one store: whom to look for (attribution), and the scan."""

    def __init__(self, scenarios: Iterable[Any], volumes: Mapping[str, Path], position: str = "live"):
        self.volumes, self.when = dict(volumes), WHEN[position]
        self._writes = {s.id: {st.value for st in s.steps if st.value is not None} for s in scenarios}
        self._ran: set[str] = set()
        self._first = True

    def begin(self, scenario_id: str) -> None:
        """A scenario starts on the store (a second run of it, an earlier seed's values are there)."""
        self._first = scenario_id not in self._ran
        self._ran.add(scenario_id)

    def plan(self, scenario_id: str, deleted: Sequence[str], held: Sequence[str],
             moved: str | None = None) -> list[dict[str, Any]]:
        """Each deleted value, with the reason it cannot be attributed (None: it is looked for);
        ``held``: the values the scenario's ledger still holds undeleted after the step; ``moved``:
        the value a rescope wrote at its new scope."""
        out = []
        for value in deleted:
            others = sorted(sid for sid, vals in self._writes.items() if sid != scenario_id
                            and any(value in v for v in vals))
            if value == moved:
                reason = "moved by the rescope: current at the new scope, not a residue"
            elif any(value in v for v in held):
                reason = ("still held undeleted in this scenario (current or superseded elsewhere, "
                          "or inside another value)")
            elif others:
                reason = f"written by other scenarios of the pack too ({', '.join(others)})"
            elif not self._first:
                reason = "this scenario already ran on this store (an earlier seed wrote the same value)"
            else:
                reason = None
            out.append({"value": value, "reason": reason})
        return out

    def scan(self, plan: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The ``erasure_at_rest`` record of one delete: its status, each value's, what was scanned."""
        began = time.monotonic()
        record: dict[str, Any] = {"when": self.when}
        if not self.volumes:
            return {"status": "not_measured", "reason": NO_VOLUMES, **record,
                    "values": [{"value": p["value"], "status": "not_measured"} for p in plan]}
        looked = [p["value"] for p in plan if p["reason"] is None]
        found = scan_volumes(self.volumes, looked) if looked else {"values": [], "scanned": None}
        by_value = {v["value"]: v for v in found["values"]}
        values = [by_value.get(p["value"]) or {"value": p["value"], "status": "not_attributable",
                                                "reason": p["reason"]} for p in plan]
        record.update(status=delete_status(values), values=values, scanned=found["scanned"],
                      seconds=round(time.monotonic() - began, 6))
        if record["status"] == "not_found":
            record["note"] = NOT_DECODED
        return record


def delete_status(values: Sequence[Mapping[str, Any]]) -> str:
    """One delete's status from its values: present if any has a hit, not_found if any was looked for."""
    if any(v.get("hits") for v in values):
        return "present"
    if any(v.get("status") in ("present", "not_found") for v in values):
        return "not_found"
    return "not_measured" if any(v.get("status") == "not_measured" for v in values) else "not_attributable"


def summarise(observations: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Per row: deletes, how many were scanned, present, not_found, not_attributable, not_measured,
    not_applied (no erase), files and bytes read, files skipped (too large) or unreadable, the
    evidence (every present value with its hits), and what the saved scans contradict
    (``problems``: a status its own hits do not give)."""
    out: dict[str, Any] = {"deletes": 0, "scanned": 0, **{s: 0 for s in STATUSES}, "not_applied": 0,
                           "files": 0, "bytes": 0, "skipped_files": 0, "unreadable_files": 0,
                           "evidence": [], "problems": [], "note": NOT_DECODED}
    for obs in observations:
        out["not_applied"] += sum(1 for s in obs.get("skipped", []) if s.get("op") in ("delete", "rescope")
                                  and s.get("applied") is False)
        for entry in obs.get("steps", []):
            record = entry.get("erasure_at_rest")
            if record is None:
                continue
            where = {"scenario": obs["scenario"], "seed": obs["seed"], "step": entry["index"], "key": entry.get("key")}
            status = delete_status(record.get("values", []))
            out["deletes"] += 1
            out[status] += 1
            out["scanned"] += status in ("present", "not_found")
            scanned = record.get("scanned") or {}
            out["files"] += scanned.get("files", 0)
            out["bytes"] += scanned.get("bytes", 0)
            out["skipped_files"] += len(scanned.get("skipped", []))
            out["unreadable_files"] += len(scanned.get("unreadable", []))
            if record.get("status") != status:
                out["problems"].append({**where, "message": f"saved status {record.get('status')!r}, "
                                                            f"its values give {status!r}"})
            for value in record.get("values", []):
                if (value.get("status") == "present") != bool(value.get("hits")):
                    out["problems"].append({**where, "message": f"value {value.get('value')!r}: status "
                                            f"{value.get('status')!r} with {len(value.get('hits') or [])} hit(s)"})
                if value.get("hits"):
                    out["evidence"].append({**where, "value": value["value"], "hits": value["hits"],
                                            "hit_count": value.get("hit_count", len(value["hits"])),
                                            "when": record.get("when")})
    return out
