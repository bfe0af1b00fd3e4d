"""Probe three behaviours of CrewAI's memory on LanceDB that the ten cases do not express (written in
the row's notes). Run in the driver's environment with a scratch folder; writes one JSON object
to the file named second (the driver kit sends anything printed to stderr). The kit is found on
``PYTHONPATH``, as the lab hands it to every driver.

- ``prefix_leak``: ``list_records(scope="/alice")`` also serves the records of scope ``/alice2``
  (the scope filter is ``scope LIKE '/alice%'``, no path separator);
- ``forget_scope_takes_root``: ``forget(scope="/alice2")`` also deletes a record of the root
  scope ``/`` (the delete filter adds ``OR scope = '/'``);
- ``erased_text_on_disk``: after ``forget(record_ids=[id])`` the erased text is still in a file of
  the LanceDB folder (Lance keeps older table versions).

    PYTHONPATH=images/driverkit python images/crewai/probe_scopes.py /tmp/scratch /tmp/probe.json
"""

import json
import sys
from pathlib import Path

from driver import CrewAIDriver  # imports the driver kit first


def main(root: Path) -> dict:
    """Write, read and erase through the driver (the SUT's own paths); report what was served and kept."""
    drv = CrewAIDriver()
    drv.open({"store": root}, {})
    try:
        meta = {"role": "user", "source": "probe"}
        secret = drv.write("alice", "PROBE-ALICE-ONLY record of alice", meta)
        drv.write("alice2", "PROBE-ALICE2-ONLY record of alice2", meta)
        leak = any("PROBE-ALICE2-ONLY" in r["text"] for r in drv.read("alice"))
        drv.memory.remember("PROBE-ROOT record of scope /", scope="/", categories=["probe"], importance=0.5)
        drv.erase("alice", secret["id"])
        drv.erase("alice2", None)
        root_left = [r.content for r in drv.memory.list_records(scope="/")]
    finally:
        drv.close()
    on_disk = any(b"PROBE-ALICE-ONLY" in p.read_bytes() for p in (root / "memory").rglob("*") if p.is_file())
    return {"prefix_leak": leak, "forget_scope_takes_root": not any("PROBE-ROOT" in t for t in root_left),
            "erased_text_on_disk": on_disk}


if __name__ == "__main__":
    Path(sys.argv[2]).write_text(json.dumps(main(Path(sys.argv[1]))), encoding="utf-8")
