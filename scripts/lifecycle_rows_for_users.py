"""What the committed lifecycle result sets mean for a user of each SUT: one line per row, by hand.

The only hand-written text of docs/rows-lifecycle.md (scripts/lifecycle_rows_doc.py reads every figure
from the result sets); the order here is the page's order. Re-read it against the sets after
re-publishing a row.
"""

#: Both Pydantic AI rows (SQLite and files) gave the same lifecycle figures.
PYDANTIC_AI_MEMORY = (
    "Pydantic AI's memory keeps users apart (no fact served across users in 17 chances) and a deleted "
    "line is never served again (0/12), live and after a restart; the removed text was not found in the "
    "store's bytes after any delete the scan could attribute. A correction sent as a new line leaves "
    "the old line beside it (stale reuse 10/10): the tool can rewrite a line in place (`old_text`), but a "
    "line's text is its only identity, so the gate corrects by writing again. Memory never expires "
    "(expiry not tested).")

#: row -> one line for a user of the SUT (an interpretation of the committed result sets).
ROWS: dict[str, str] = {
    "mem0-qdrant-local": (
        "Mem0's own `update()` and `delete()` change what `get_all` serves at once and after a restart, "
        "with no leak across users or tenants; but with infer off a second `add()` of a fact is one more "
        "memory, served beside the old one: correct through `update()`, not `add()`. A deleted memory leaves "
        "the Qdrant folder but not Mem0's `history.db`, whose ADD and DELETE events keep its text (file "
        "and offset below) in both positions."),
    "crewai-ltm-lancedb": (
        "`update()` and `forget(record_ids=...)` act at once and survive a restart; a second `remember()` "
        "of a fact does not replace the first. Every forgotten record's text stays in the LanceDB folder "
        "(older data fragments; after restarts, whose opens compact the table, in more of them): `forget()` "
        "is not erasure at rest until lancedb prunes old versions (7 days by default)."),
    "inspeximus-default": (
        "A keyed `remember()` (its own supersession key) retires the old value, so corrections and rewrites "
        "are never served stale, `forget()` removes a record from every read, and nothing differs after a "
        "restart; a raw scan of the store finds no forgotten text (not found, not proven gone). Users are kept "
        "apart by memlab's driver (it reads every user's items and keeps the context's), not by inspeximus: "
        "scope leakage is not inspeximus's figure and is NOT TESTED."),
    "inspeximus-rcpt+dir": (
        "Signed receipts change nothing of the lifecycle: the same results in both positions, and neither "
        "the receipts nor the tombstones file holds a forgotten text a raw scan finds."),
    "atmem-chain": (
        "With the fact key on write and `correct_record` for corrections atmem serves only the current "
        "value, deletions hold, and a restart changes nothing the agent sees; but while atmem runs a "
        "forgotten record's text is still in `mem.db-wal` (once in `mem.db`), and once it is stopped (its "
        "close checkpoints the WAL) a raw scan no longer finds it: erasure at rest depends on when one looks."),
    "atmem-chain+checkpoint": (
        "The external checkpoint changes nothing of the lifecycle: as atmem-chain, forgotten text in the WAL "
        "while atmem runs, not found once it is stopped."),
    "atelya-attest-chain": (
        "amem's keyed add and its update event leave only the current value in `replay`; `atelya-govern erase "
        "--hard` rewrites the op-log, and no erased text is found in the volumes in either position. The erase "
        "is a pattern over every record's text, not an id: an identical text in another context would go too "
        "(none of the pack's erasures matched a second record). Contexts are kept apart by memlab's driver "
        "(it replays the whole op-log and keeps the context's records), not by atelya: scope leakage is NOT "
        "TESTED."),
    "atelya-attest-chain+anchor": (
        "The anchor changes nothing of the lifecycle: the same results (it refuses to checkpoint the history "
        "a hard erase rewrote, a warning no read consults)."),
    "memory-blackbox-md": (
        "A Markdown memory has no update: every correction is one more line, and the agent is served the old "
        "value beside the new one (stale reuse at every opportunity); a deleted line leaves the file, but "
        "memory-blackbox's own ledger keeps the file's earlier content, the deleted text with it, in "
        "`ledger.db` in both positions: the audit trail is a copy of what was erased. One file per context "
        "keeps users apart (the deployment's choice, not a filter of the SUT's): scope leakage is NOT TESTED."),
    "langgraph-sqlite": (
        "LangGraph's update by id and `RemoveMessage` change the state `get_state` serves, at once and after "
        "a restart; a second plain write is one more message. `RemoveMessage` only writes a new checkpoint: "
        "the removed message stays in the thread's older checkpoints (`checkpoints.db-wal` while running, "
        "`checkpoints.db` once stopped) -- removal is not erasure; `delete_thread` erases the whole thread."),
    "langgraph-sqlite+aes": (
        "The same behaviour as langgraph-sqlite; the scan finds nothing only because every checkpoint is "
        "ciphertext, which is no erasure: the older checkpoints still hold the removed message, encrypted, "
        "for whoever has the key."),
    "langgraph-postgres": (
        "As SqliteSaver: served state right in both positions, and the removed message kept in older "
        "`checkpoint_blobs` versions and PostgreSQL's WAL (`pg_wal` live, also the table files under `base/` "
        "once the server was stopped)."),
    "langgraph-redis": (
        "As SqliteSaver and PostgresSaver (measured on the docker runtime): served state right in both "
        "positions, the same counts; the removed message stays in the thread's older checkpoint documents, "
        "which Redis's append-only file holds on disk (`appendonly.aof.1.incr.aof`, offsets below)."),
    "langgraph-ledger": (
        "Reads pass straight through to SqliteSaver, and this driver corrects by appending and cannot remove "
        "one message: every correction is served beside the old value, deletes are not tested; "
        "langgraph-sqlite measures LangGraph's own update and removal."),
    "langgraph-store": (
        "InMemoryStore's keyed `put` replaces a fact's value, `delete` removes it and the namespace keeps "
        "tenants and users apart, so while its process runs it passes every check it can express; but it "
        "keeps nothing past its process: after each restart it serves no fact at all (every current fact "
        "missing, FAIL). A store for development, not memory an agent can be restarted on."),
    "langgraph-store-sqlite": (
        "SqliteStore does the same and keeps it across restarts: a correction or a second write of a key "
        "replaces its value, a deleted fact is gone from what `search` serves, nothing reaches another user "
        "or tenant, and no deleted value is found in `store.db` afterwards (Debian's SQLite zeroes deleted "
        "rows). Expiry is not tested: its TTL counts wall-clock minutes."),
    "openai-agents-sqlite-session": (
        "`SQLiteSession` appends: every correction leaves the old value in the next turn's history; it "
        "cannot erase one item of the caller's choosing, so deletes are not tested; a restart changes nothing."),
    "llamaindex-memory-sqlite": (
        "`Memory` appends too: every correction leaves the old value in what `aget()` gives the agent; only "
        "whole sessions can be erased, so deletes are not tested; a restart changes nothing."),
    "hermes-memory-md": (
        "`memory(action=remove)` takes an entry out of the next session's prompt at once and after a "
        "restart, and Hermes rewrites `MEMORY.md` whole, so a raw scan of the volume finds none of the "
        "removed text (not found, not proven gone); a correction made with `add` is one more entry beside "
        "the old value in every later prompt. Hermes's own `replace` overwrites an entry, but addresses it "
        "by its text, so the gate cannot drive it (see How) and it is not measured here. One Hermes profile "
        "per context keeps users apart (the deployment's, not a filter of Hermes's): scope leakage is NOT TESTED."),
    "openclaw-memory-md": (
        "The agent's edit tool takes a line out of `MEMORY.md`, so `memory_get` no longer serves it, at once "
        "and after a restart, and a raw scan of the workspace finds none of the removed text (not found, not "
        "proven gone); a correction is one more line beside the old value (OpenClaw's memory has no update "
        "that keeps a line's identity), served by every later `memory_get`; nothing differs across restarts. "
        "One workspace per context keeps users apart (the deployment's): scope leakage is NOT TESTED."),
    "letta-block-history": (
        "Letta's own `update_block_async` and `delete_block_async` change what `get_blocks_async` serves at "
        "once and after a restart, with no leak across users or tenants (one label per user); a value "
        "rewritten with a second write is one more block beside the old one (stale reuse in "
        "`ttl-then-rewrite`), and every deleted value stays readable in the PostgreSQL data directory "
        "(the WAL live; the table files once the server was stopped)."),
    "adk-sessions-sqlite": (
        "ADK's session events are a log: `append_event` adds a corrected value beside the old one, and "
        "`get_session` serves both to the next turn (stale reuse in every correction); no app or user is "
        "served another's events, at once or after a restart. ADK erases no single event (`delete_session` "
        "takes the whole session), so deletes are not tested."),
    "adk-sessions-postgres": (
        "The same on PostgreSQL: a correction is one more event beside the old one (stale reuse), no app or "
        "user is served another's events, a restart changes nothing; deletes are not tested."),
    "adk-sessions-sqlite-session-state": (
        "Session state is a dict: a state delta on a key replaces its value, so a correction is served alone, "
        "at once and after a restart, and no app or user reaches another's; ADK deletes no state key (a "
        "session goes whole), so deletes are not tested."),
    "adk-sessions-sqlite-user-state": (
        "A user's state (the `user:` keys) behaves as session state: corrections replace the value, nothing "
        "crosses apps or users, a restart changes nothing; no state key can be deleted (not tested)."),
    "adk-sessions-sqlite-app-state": (
        "An app's state (the `app:` keys) the same, one app per tenant and user here: corrections replace "
        "the value, a restart changes nothing; no state key can be deleted (not tested). App state is "
        "shared by every user of an app by design: two users of one app see each other's `app:` keys."),
    "adk-sessions-postgres-session-state": (
        "The same on PostgreSQL (the state a jsonb column): the same checks and counts as on SQLite, live and "
        "after a restart."),
    "adk-sessions-postgres-user-state": (
        "The same on PostgreSQL: the same checks and counts as on SQLite, live and after a restart."),
    "adk-sessions-postgres-app-state": (
        "The same on PostgreSQL: the same checks and counts as on SQLite, live and after a restart."),
    "langgraph-store-postgres": (
        "PostgresStore behaves as SqliteStore in what `search` serves: a keyed `put` replaces a value, "
        "`delete` removes it, nothing reaches another user or tenant, at once and after a restart; but every "
        "deleted value stays readable in the PostgreSQL data directory (the WAL live; the table file and "
        "the WAL once the server was stopped) until PostgreSQL vacuums it. Expiry is not tested: its TTL "
        "counts wall-clock minutes."),
    "langmem-sqlite": (
        "LangMem's `manage_memory` update and delete change what `search_memory` serves, at once and after a "
        "restart, and nothing crosses users or tenants; a fact written again with `create` is a second "
        "memory beside the first (stale reuse in `ttl-then-rewrite`): correct through `update` with the "
        "memory's id. No deleted text is found in `store.db` afterwards (Debian's SQLite zeroes deleted rows)."),
    "langchain-postgres-history": (
        "A chat history has no update: the gate corrects and deletes by rewriting the session through the "
        "`messages` setter (clear, then add), which serves the right values at once and after a restart with "
        "no leak across sessions; a fact written again is one more message (stale reuse in "
        "`ttl-then-rewrite`), and every removed message stays readable in the PostgreSQL data directory "
        "(the WAL live; the table file and the WAL once the server was stopped)."),
    "agno-sqlite": (
        "`replace_user_memory` and `delete_user_memory` change what an agent is given at once and after a "
        "restart, with no leak across users; a fact added again is a second memory beside the first (stale "
        "reuse in `ttl-then-rewrite`). While Agno runs a deleted memory's text is still in `agno.db-wal`; "
        "once it is stopped (its close checkpoints the WAL) a raw scan no longer finds it."),
    "agno-sqlite-sessions": (
        "A run rewritten under its `run_id` and `delete_run` change the chat history served at once and "
        "after a restart, with no leak across sessions; a fact said again is another run beside the first "
        "(stale reuse in `ttl-then-rewrite`). Erasure at rest as for agno-sqlite: the deleted text in "
        "`agno.db-wal` while running, not found once stopped."),
    "autogen-state": (
        "An AssistantAgent's saved state (`save_state()` written to a JSON file per conversation, as "
        "AutoGen's state tutorial does it) only appends: a correction is one more message, so the old value "
        "stays in what the agent hands its model on every later turn (stale reuse 14/14). Its model context "
        "cannot erase one message (a reset clears the conversation), so deletion is not tested; one file per "
        "conversation keeps users and tenants apart, a deployment's choice and not a filter of AutoGen's, so "
        "scope leakage is not tested either, and the P1 gate, with neither of its checks testable, is "
        "INCONCLUSIVE; a restart changes nothing: the file is the whole state. Not measured at rest: the messages are a list inside each conversation's JSON document, a "
        "layout the lab's JSON editor does not yet address."),
    "pydantic-ai-memory": PYDANTIC_AI_MEMORY,
    "pydantic-ai-memory-file": PYDANTIC_AI_MEMORY,
}
