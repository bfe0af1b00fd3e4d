"""Driver of the reference SUTs (refmem): one driver for every reference row.

``open.config`` picks the row: ``storage`` sqlite|jsonl|markdown|postgres|redis (the last
two in the service the profile declares, reached through ``open.services``), ``seal``
none|read|audit, ``head`` off-store (``head.json`` in volume ``anchor``),
in-store (beside the records, in volume ``store``) or none (unsealed). The key lives in volume
``keys``. Other config fields (head_location, adversary_holds) are for people.
"""

import platform
import sqlite3

import memlab_driver as kit  # first: guards stdout, captures import-time signals
import refmem


class ReferenceDriver(kit.Driver):
    """Maps the protocol onto refmem.MemoryStore."""

    def open(self, volumes, config):
        """Open the store the config names, on the lab's volumes."""
        storage, seal = config.get("storage", "sqlite"), config.get("seal", "none")
        head = config.get("head", "in-store" if seal != "none" else "none")
        if head not in (("none",) if seal == "none" else ("off-store", "in-store")):
            raise kit.BadRequest(f"config.head {head!r} does not fit seal {seal!r} (none / off-store | in-store)")
        served = storage in ("postgres", "redis")  # the records live in the service the lab started
        needed = ([] if served else ["store"]) + (
            ["keys", "anchor" if head == "off-store" else "store"] if seal != "none" else [])
        missing = [name for name in needed if name not in volumes]
        if missing:
            raise kit.BadRequest(f"config needs volumes {missing} (storage={storage}, seal={seal}, head={head})")
        try:
            self.store = refmem.open_store(
                volumes.get("store"), storage=storage, seal=seal, key_dir=volumes.get("keys"),
                head_dir=volumes["anchor" if head == "off-store" else "store"] if seal != "none" else None,
                url=next(iter(self.services.values()), None))
        except ValueError as exc:  # a configuration the SUT does not offer: a harness fault
            raise kit.BadRequest(str(exc)) from None
        self.config = {"storage": storage, "seal": seal, "head": head}

    def describe(self):
        """refmem's version, the runtime and sqlite it links against, and what the store can do."""
        return {"sut": "memlab-reference", "version": refmem.__version__,
                "libraries": {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version},
                "capabilities": {"erasure": "record", "order": True, "metadata": True, "snapshot": True},
                "configuration": dict(self.config)}

    def write(self, context, text, meta):
        """Append through MemoryStore.write; role and source come from the request's meta."""
        return self.store.write(context, text, role=meta.get("role", "user"), source=meta.get("source")).served()

    def read(self, context):
        """MemoryStore.read, served as the protocol's records."""
        return [rec.served() for rec in self.store.read(context)]

    def erase(self, context, record_id):
        """MemoryStore.erase: one record, or the whole context when record_id is None."""
        return self.store.erase(context, record_id)

    def audit(self, context):
        """MemoryStore.audit (sealed rows only)."""
        if self.config["seal"] == "none":
            raise kit.Unsupported("an unsealed reference store has no audit")
        problems = self.store.audit(context)
        return {"ok": not problems, "problems": problems, "call": f"refmem.MemoryStore.audit({context!r})"}

    def close(self):
        """Close the store if it was opened."""
        if hasattr(self, "store"):
            self.store.close()


if __name__ == "__main__":
    kit.serve(ReferenceDriver)
