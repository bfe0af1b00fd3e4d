"""Driver of the lifecycle reference SUTs: three small memories, one file store, one driver.

``open.config.mode`` picks the row (images/README.md, "Lifecycle additions"):

- ``strict`` honours the lifecycle: a write supersedes the key's earlier values in its
  scope, an erase removes the record (from the file too), a TTL expires it, and a read
  serves only the querying tenant's and user's current values;
- ``naive`` (the classic broken store) serves every value ever written in the scope:
  superseded, erased and expired alike, though still filtered by tenant and user;
- ``leaky`` is naive and also filters by tenant only (another user's values leak).

``open.config.erasure: context`` makes any mode a store that erases whole contexts only (an
erase naming a record is refused; describe offers no ``erase`` to the lifecycle gate).

Every mutation answers ok. The state is one JSON file (``lifecycle.json`` in volume
``store``), rewritten whole after every mutation, so it survives a restart.
"""

import json
import os
import platform
from pathlib import Path

import memlab_driver as kit  # first: guards stdout, captures import-time signals

VERSION = "0.1.0"
MODES = ("strict", "naive", "leaky")


class LifecycleDriver(kit.Driver):
    """A key/value fact memory per (tenant, user), with logical time."""

    def open(self, volumes, config):
        """Load the store from volume ``store`` (empty on a first start)."""
        self.mode, self.erasure = config.get("mode", "strict"), config.get("erasure", "record")
        if self.mode not in MODES:
            raise kit.BadRequest(f"config.mode {self.mode!r}: use one of {list(MODES)}")
        if self.erasure not in ("record", "context"):
            raise kit.BadRequest(f"config.erasure {self.erasure!r}: use record or context")
        if "store" not in volumes:
            raise kit.BadRequest("the lifecycle reference needs volume 'store'")
        self.path = Path(volumes["store"]) / "lifecycle.json"
        state = json.loads(self.path.read_text()) if self.path.is_file() else {}
        self.now, self.next_id = state.get("now", 0), state.get("next_id", 1)
        self.records = {r["id"]: r for r in state.get("records", [])}

    def describe(self):
        """The reference's version, mode, and the lifecycle ops it offers."""
        return {"sut": "memlab-lifecycle-reference", "version": VERSION,
                "libraries": {"python": platform.python_version()},
                "capabilities": {"erasure": self.erasure, "lifecycle": ["ttl", "update", "tenants"]
                                 + (["erase"] if self.erasure == "record" else [])},
                "configuration": {"mode": self.mode, "erasure": self.erasure}}

    def write(self, context, text, meta):
        """Store one fact; strict supersedes the key's earlier values in the scope."""
        tenant, user = self._scope(context)
        key, ttl = meta.get("key"), meta.get("ttl_steps")
        if self.mode == "strict" and key is not None:
            for rec in self._mine(tenant, user):
                if rec["key"] == key:
                    rec["superseded"] = True
        rec = {"id": str(self.next_id), "tenant_id": tenant, "user_id": user, "key": key, "text": text,
               "written_at": self.now, "expires_at": None if ttl is None else self.now + int(ttl),
               "superseded": False, "erased": False}
        self.next_id += 1
        self.records[rec["id"]] = rec
        self._save()
        return self._served(rec)

    def update(self, context, record_id, text, meta):
        """strict: the record's text replaced in place; naive/leaky: a new value beside the old."""
        tenant, user = self._scope(context)
        rec = self.records.get(record_id)
        if rec is None or (rec["tenant_id"], rec["user_id"]) != (tenant, user):
            raise KeyError(f"no record {record_id} in {tenant}/{user}")
        if self.mode != "strict":
            return self.write(context, text, {**meta, "key": rec["key"]})
        rec.update(text=text, written_at=self.now, expires_at=None)  # a correction carries no TTL
        self._save()
        return self._served(rec)

    def read(self, context):
        """The facts this mode serves to the scope, in write order (the query is not used)."""
        tenant, user = self._scope(context)
        if self.mode == "leaky":
            return [self._served(r) for r in self.records.values() if r["tenant_id"] == tenant]
        return [self._served(r) for r in self._mine(tenant, user) if self.mode == "naive" or self._live(r)]

    def erase(self, context, record_id):
        """Erase one record of the scope (or all of them); strict removes it from the file."""
        if record_id is not None and self.erasure == "context":
            raise kit.Unsupported("this store erases whole contexts only (record: null)")
        tenant, user = self._scope(context)
        hits = [r for r in self._mine(tenant, user) if record_id in (None, r["id"])]
        for rec in hits:
            if self.mode == "strict":
                del self.records[rec["id"]]
            else:
                rec["erased"] = True
        self._save()
        return [r["id"] for r in hits]

    def advance_time(self, steps):
        """Move the logical clock on; strict then hides what expired."""
        self.now += steps
        self._save()
        return self.now

    # ---- helpers -----------------------------------------------------------------
    def _scope(self, context):
        """(tenant, user): the request's scope, else the folded context ``tenant/user``."""
        if self.scope is not None:
            return self.scope["tenant_id"], self.scope["user_id"]
        tenant, _, user = context.partition("/")
        return tenant, user

    def _mine(self, tenant, user):
        return [r for r in self.records.values() if (r["tenant_id"], r["user_id"]) == (tenant, user)]

    def _live(self, rec):
        expired = rec["expires_at"] is not None and self.now >= rec["expires_at"]
        return not (rec["superseded"] or rec["erased"] or expired)

    @staticmethod
    def _served(rec):
        meta = {k: rec[k] for k in ("key", "tenant_id", "user_id", "written_at", "expires_at")}
        return {"id": rec["id"], "text": rec["text"], "meta": meta}

    def _save(self):
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"now": self.now, "next_id": self.next_id,
                                   "records": list(self.records.values())}))
        os.replace(tmp, self.path)


if __name__ == "__main__":
    kit.serve(LifecycleDriver)
