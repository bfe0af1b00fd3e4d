"""memlab driver kit: speak the lab's driver protocol (images/README.md) in a few lines.

Stdlib only, one package, on the path of every SUT environment the lab builds (local and
Docker), so a driver anywhere just imports it. Import it **before** the SUT: the import guards stdout
(the protocol gets a private copy of fd 1; fd 1 and ``sys.stdout`` then point at
stderr, so nothing the SUT prints can corrupt an answer) and starts capturing
signals, so signals raised while the SUT is imported reach the ``open`` answer.

    import memlab_driver as kit
    import my_sut

    class MyDriver(kit.Driver):
        def open(self, volumes, config):
            [store] = self.need_volumes("store")                      # BadRequest naming it if absent
            mode = self.choice("mode", ("plain", "signed"), default="plain")  # config.mode, checked
            self.db = my_sut.open(store, signed=mode == "signed")
        def write(self, context, text, meta): return {"id": self.db.add(context, text)}
        def read(self, context): return [{"id": r.id, "text": r.text, "meta": {}} for r in self.db.get(context)]
        def erase_record(self, context, record_id): self.db.delete(record_id)  # erase(ctx, id)
        def erase_context(self, context): return self.db.drop(context)        # erase(ctx, None)

    if __name__ == "__main__":
        kit.serve(MyDriver)

The modules, each one job (a driver needs none of them by name but ``langgraph_thread`` and
``fork_placeholder``: everything public is here; the fork server's own modules are not listed):

====================  ==================================================================
``guard``             the stdio guard; runs first, at import (private fd 0/1 for the protocol)
``capture``           signal capture: the root log handler, the warnings hook, the stderr echo
``protocol``          request fields, answer shapes and the fault kinds (BadRequest, Unsupported)
``driver``            the :class:`Driver` base class: the ops, erasure defaults, helpers
``lifecycle``         the lifecycle additions: ``update``, ``advance_time``, ``scope``, ``query``
``dispatch``          one driver process: validate a request, call the driver, shape its answer
``loop``              :func:`serve`: JSON-lines framing on the guarded stdio, SIGTERM
``helpers``           what drivers repeat: :func:`fixed_paths`, :func:`dist_version`, :func:`hash_embedding`,
                      :func:`lexical_embedding`
``langgraph_thread``  a LangGraph message thread as records, for the drivers of LangGraph checkpointers
                      (imported by them alone: it needs LangGraph, the rest of the kit is stdlib only)
``fork_placeholder``  a SUT that reads its paths at import preloaded by a fork server under a sealed
                      placeholder, rebound in each start's ``open`` (docs/fork-server.md)
====================  ==================================================================
"""

from __future__ import annotations

# Order matters: the guard before anything that could print, then the capture (which attaches
# itself at import), so the SUT's import-time warnings and log records reach the ``open`` answer.
from memlab_driver import guard
from memlab_driver.capture import CAPTURE as _CAPTURE
from memlab_driver.driver import Driver
from memlab_driver.frontdoor import (case_schema_name, case_store, check_case_schema, on_schema, psycopg_case_schema,
                                    scope_key)
from memlab_driver.helpers import dist_version, fixed_paths, hash_embedding, lexical_embedding
from memlab_driver.loop import serve
from memlab_driver.protocol import BadRequest, Unsupported

__all__ = ["Driver", "BadRequest", "Unsupported", "serve", "fixed_paths", "hash_embedding", "lexical_embedding",
           "dist_version", "case_store",
           "case_schema_name", "check_case_schema", "psycopg_case_schema", "on_schema", "scope_key"]

#: The protocol's private channels, as the one-module kit named them (a test driver writes a
#: garbage line on ``_PROTOCOL_OUT`` on purpose); set once, by the guard, at import.
_PROTOCOL_OUT = guard.PROTOCOL_OUT
_PROTOCOL_IN = guard.PROTOCOL_IN
