"""The result set on disk: raw observations as they happen, rows derived from them,
each row pinned by a SHA-256 digest over its RFC 8785 canonical encoding, and a
manifest of those digests.

Layout of a result set::

    run.json                          run id, dates, status, lab version and commit, runtime
    manifest.json                     every row's digest, every evidence file's digest, decision rules,
                                      method revision, lab release and commit
    manifest.sig                      optional Ed25519 signature of the manifest (lab.signing)
    rows/<row>@<point>.json           one row per SUT configuration and detection point
    observations/<row>/<trial>.json   raw observations: seed, C1, C2, T1..T10, profile, environment
    logs/<row>/<trial>-<n>.log        the SUT's log (stderr) of every start
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import rfc8785

from lab import METHOD_REVISION, __version__
from lab.cases import CASE_IDS
from lab.pins import evidence
from lab.profile import PROJECT_ROOT
from lab.scoring import DECISION_RULES, score
from lab.verdicts import control_c1, control_c2, derive_cell

ROW_SCHEMA = "memlab.row/1"
MANIFEST_SCHEMA = "memlab.manifest/1"


def write_json(path: Path, data: Any) -> Path:
    """Write JSON atomically (a crash never leaves half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_json(path: Path) -> Any:
    """Read one JSON file."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def canonical(row: dict[str, Any]) -> bytes:
    """The RFC 8785 canonical encoding of a row."""
    return rfc8785.dumps(row)


def digest(row: dict[str, Any]) -> str:
    """``sha256:<hex>`` over the canonical encoding."""
    return "sha256:" + hashlib.sha256(canonical(row)).hexdigest()


def lab_revision() -> dict[str, Any]:
    """The lab's release and git commit (with a dirty flag), as far as they can be known."""
    info: dict[str, Any] = {"version": __version__, "commit": None, "dirty": None}
    try:
        commit = subprocess.run(["git", "-C", str(PROJECT_ROOT), "rev-parse", "HEAD"],
                                capture_output=True, text=True, timeout=10)
        if commit.returncode == 0:
            info["commit"] = commit.stdout.strip()
            status = subprocess.run(["git", "-C", str(PROJECT_ROOT), "status", "--porcelain", "--",
                                     "lab", "edits", "images", "sut_profiles"],
                                    capture_output=True, text=True, timeout=10)
            info["dirty"] = bool(status.stdout.strip())
    except (OSError, subprocess.TimeoutExpired):
        pass
    return info


class ResultSet:
    """A result-set folder being written."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def observation_dir(self, row: str) -> Path:
        """Where a row's raw observations go."""
        return self.root / "observations" / row

    def saver(self, row: str):
        """A callable ``save(trial, data)`` writing one observation file of ``row``."""
        return lambda trial, data: write_json(self.observation_dir(row) / f"{trial}.json", data)

    def write_rows(self, row: str, run: dict[str, Any]) -> list[dict[str, Any]]:
        """Derive the rows of one SUT configuration from its saved observations and write them."""
        rows = assemble_rows(self.observation_dir(row), run)
        for r in rows:
            write_json(self.root / "rows" / f"{r['row']}@{r['detection_point']}.json", r)
        return rows

    def write_manifest(self, run: dict[str, Any]) -> dict[str, Any]:
        """Digest every row file and write ``manifest.json``."""
        entries = []
        for path in sorted((self.root / "rows").glob("*.json")):
            row = read_json(path)
            entries.append({"file": f"rows/{path.name}", "row": row["row"],
                            "detection_point": row["detection_point"], "digest": digest(row)})
        manifest = {"schema": MANIFEST_SCHEMA, "method_revision": METHOD_REVISION,
                    "lab": run.get("lab"), "run_id": run.get("run_id"), "canonicalization": "RFC 8785 (JCS)",
                    "digest": "SHA-256 over the canonical encoding of each row file",
                    "decision_rules": DECISION_RULES, "rows": entries,
                    "evidence_digest": "SHA-256 over the bytes of each evidence file (run.json, observations, logs)",
                    "evidence": evidence(self.root)}
        (self.root / "manifest.sig").unlink(missing_ok=True)  # a signature over the old manifest is void
        write_json(self.root / "manifest.json", manifest)
        return manifest


def assemble_rows(obs_dir: Path, run: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows (one per detection point) from a row's observation folder; a pure re-derivation."""
    profile = read_json(obs_dir / "profile.json")
    env = _maybe(obs_dir / "environment.json") or {}
    seed = _maybe(obs_dir / "seed.json") or {"error": {"message": "no seed observation"}}
    plan = seed.get("plan") or {}
    filters = profile.get("signals") or []
    seed_error = (seed.get("error") or {}).get("message")
    missing = "not measured (seeding failed)" if seed_error else "not measured (run interrupted?)"
    c1 = _maybe(obs_dir / "C1.json") or {"error": {"message": missing}}
    c2 = _maybe(obs_dir / "C2.json") or {"error": {"message": missing}}
    ordered = (profile.get("capabilities") or {}).get("order", True)
    controls = {"C1": control_c1(c1, plan, filters, ordered) if plan else {"ok": False, "reason": missing},
                "C2": control_c2(c2)}
    evaluable = controls["C1"]["ok"] and controls["C2"]["ok"]
    observations = {cid: _maybe(obs_dir / f"{cid}.json") for cid in CASE_IDS}
    rows = []
    for point in profile.get("detection_points", ["read"]):
        cells = {}
        for cid, obs in observations.items():
            obs = obs or {"case": cid, "status": "error", "error": {"stage": "seed" if seed_error else "harness",
                                                                     "message": missing}}
            cells[cid] = _cell(obs, derive_cell(obs, c1, point, filters, profile.get("observation_class", "a")))
        landed = [cid for cid, o in observations.items() if o and (o.get("c3") or {}).get("ok")]
        not_landed = [cid for cid, o in observations.items() if o and o.get("c3") and not o["c3"].get("ok")]
        row_controls = {**controls, "C3": {"ok": not not_landed, "landed": landed, "not_landed": not_landed}}
        reason = None if evaluable else (f"seeding failed: {seed_error}" if seed_error else "; ".join(
            f"{k}: {v['reason']}" for k, v in controls.items() if not v["ok"]))
        rows.append({
            "schema": ROW_SCHEMA, "row": profile["row"], "detection_point": point,
            "title": profile.get("title"),
            "sut": {**(profile.get("sut") or {}), "reported": ((seed.get("describe") or {}).get("result"))},
            "runtime": env, "store": profile.get("store"), "configuration": profile.get("configuration"),
            "volumes": profile.get("volumes"), "capabilities": profile.get("capabilities"),
            "dut_boundary": profile.get("dut_boundary"), "signals_documented": filters,
            "position": _position(profile, observations),
            "sut_stopped_during_edits": _position(profile, observations) == "stopped",
            "method_revision": METHOD_REVISION, "lab": run.get("lab"), "run_id": run.get("run_id"),
            "date": run.get("started"), "controls": row_controls, "evaluable": evaluable,
            "not_evaluable_reason": reason, "cells": cells, **score(cells, evaluable),
            "notes": profile.get("notes"), "observations": f"observations/{profile['row']}",
        })
    return rows


def _position(profile: dict[str, Any], observations: dict[str, Any]) -> str:
    """stopped | alive: what the measured trials say (a case saved with the SUT alive across its edit
    makes the row alive), else the profile's position."""
    if any(o and o.get("sut_stopped_during_edit") is False for o in observations.values()):
        return "alive"
    return profile.get("position") or "stopped"


def _cell(obs: dict[str, Any], derived: dict[str, Any]) -> dict[str, Any]:
    """A cell: the derived verdict plus the evidence a reader needs (edit, C3, served, signals)."""
    read = obs.get("read") or {}
    cell = dict(derived)
    cell["evidence"] = {
        "intended": obs.get("intended"),
        "statements": (obs.get("applied") or {}).get("statements"),
        "c3": {k: (obs.get("c3") or {}).get(k) for k in ("ok", "reasons", "evidence", "files")},
        "served": [r.get("text") for r in read.get("records") or []] if read.get("ok") else None,
        "refusal": read.get("error") or (obs.get("open") or {}).get("error"),
        "signals": (read.get("signals") or []) + ((obs.get("open") or {}).get("signals") or []),
        "timings": obs.get("timings"),
        "observation": f"{obs.get('case')}.json",
    }
    return cell


def _maybe(path: Path) -> Any:
    try:
        return read_json(path)
    except FileNotFoundError:
        return None
