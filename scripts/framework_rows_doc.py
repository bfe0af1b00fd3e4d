"""Write docs/rows.md from the committed result sets of the framework rows (issue 4).

Every matrix, version and run time in the document is read from
results/published/<row>/ (nothing typed by hand); the notes are the row's profile notes (:func:`notes`). What
is written here by hand is one line per row saying what the measured matrix means for a user
of that framework, and the environment build times measured on an empty cache. Run after
re-publishing a row:

    python scripts/framework_rows_doc.py
"""

from __future__ import annotations

import json
from datetime import datetime

from rows_doc_common import CASE_IDS, ROOT, installed_version, matrix, published_rows

from lab.profile import load_profile  # noqa: E402  (rows_doc_common put the repository on the path)

#: row -> one line for a user of the framework (an interpretation of the committed matrix).
ROWS = {
    "langgraph-sqlite": (
        "Whoever can write `checkpoints.db` decides what a LangGraph agent resumes with: every edit, "
        "deletion, reorder, forged or relabelled message, cross-thread copy and file rollback is served "
        "by `get_state` as the thread's genuine history, with no error and no warning."),
    "langgraph-sqlite+aes": (
        "`EncryptedSerializer` refuses a checkpoint whose ciphertext was altered (`MAC check failed`) and "
        "keeps the messages out of reach, but it also loads a checkpoint written in plain msgpack: a keyless "
        "adversary who writes the thread's state in that form gets every edit, deletion, reorder, forgery and "
        "relabel served (the `form=plain-msgpack` variants decide T1, T3, T4, T5 and T8), and deleted, "
        "replayed, cross-thread and rolled-back ciphertexts are served as genuine too -- confidentiality, not "
        "integrity of the thread."),
    "langgraph-postgres": (
        "PostgresSaver is no different from SqliteSaver: whoever can write the database (SQL on the "
        "server, or its data directory at rest) decides what the agent resumes with -- every edited, "
        "deleted, reordered, forged or relabelled message, cross-thread copy and rollback is served by "
        "`get_state` as genuine, with no error and no warning."),
    "langgraph-redis": (
        "RedisSaver is no different either: whoever can write the Redis server (or its append-only file at "
        "rest) decides what the agent resumes with -- every edited, deleted, reordered, forged or copied "
        "message and every rollback is served by `get_state` as genuine, and so is a message relabelled "
        "consistently (its `kwargs.type` and its class together, T8). Relabelling only one of them makes the "
        "message fail to load (LangChain's class refuses it, the saver logs an ERROR, the driver refuses the "
        "read): a validation, not an integrity check."),
    "langgraph-redis+serve-unusable": (
        "The same RedisSaver served as `get_state` returns it: a message that fails to load reaches the "
        "agent as the raw constructor dict after the saver's ERROR log -- REPORTED, not refused, and a "
        "consistent relabel is ACCEPTED as on langgraph-redis."),
    "langgraph-store-sqlite": (
        "Whoever can write `store.db` decides what a LangGraph agent's long-term memory holds: every edited, "
        "deleted, forged, swapped or copied item, a changed `updated_at`, a rolled-back file and an erased item "
        "put back are served by `search` as genuine, with no error and no warning (the store checks nothing)."),
    "openai-agents-sqlite-session": (
        "`SQLiteSession` hands the next `Runner` turn whatever `agent_messages` holds: every one of the "
        "ten edits reaches the agent as genuine conversation history."),
    "llamaindex-memory-sqlite": (
        "`Memory.aget()` gives the agent whatever `llama_index_memory` holds for the session: every one "
        "of the ten edits reaches the agent's next prompt as genuine history."),
    "mem0-qdrant-local": (
        "`Memory.get_all` serves whatever points the local Qdrant folder holds for the user: edited, "
        "deleted, forged, cross-user and relabelled memories, a restored older folder and an erased "
        "memory brought back are all served as genuine (the stored hash is never checked). Mem0 serves "
        "memories in no defined order (not the same one twice), but it serves their created_at: the newest "
        "memory removed (an earlier state current) and two memories' created_at exchanged are served as "
        "genuine too."),
    "crewai-ltm-lancedb": (
        "`Memory.list_records` serves whatever the LanceDB table holds for the scope: every one of the ten "
        "edits -- including a rewritten `source`, the field that decides who may recall a private record -- "
        "reaches the crew as genuine memory; and a scope's reads also take in every scope whose name "
        "extends it (see the notes)."),
    "hermes-memory-md": (
        "Whoever can write `MEMORY.md` writes the agent's system prompt: every edited, deleted, reordered, "
        "forged or copied entry, a restored older Hermes home and a removed entry brought back are put into "
        "the next session's prompt as the agent's own notes, with no warning (the only check, a "
        "prompt-injection pattern scan, looks for attack phrases, not for changes)."),
    "openclaw-memory-md": (
        "Whoever can write a workspace's `MEMORY.md` decides what `memory_get` gives the agent: every edited, "
        "deleted, reordered, forged or copied line, a restored older workspace and an erased line brought "
        "back are served as the agent's own memory, with no warning -- OpenClaw reads the Markdown as it is "
        "on disk and keeps nothing to compare it with."),
    "letta-block-history": (
        "Whoever can write Letta's PostgreSQL database decides what its memory blocks say: every edited, "
        "deleted, reordered, forged, copied or relabelled block, a restored older data directory and a "
        "deleted block brought back are served by `BlockManager` as genuine, with no warning -- and the "
        "block's checkpoint history, which still holds the genuine values, is never compared with it."),
    "adk-sessions-sqlite": (
        "Whoever can write `sessions.db` decides what an ADK agent resumes a session with: every edited, "
        "deleted, reordered, forged, copied or relabelled event, a restored older file and a deleted session "
        "brought back are served by `get_session` as genuine, with no warning -- a forged event served as "
        "genuine once it carries the victim's app, user and session (a context of three fields: every edit "
        "here keeps all three). The T8 variant `place=event_data.author` alone is an error of its own, not "
        "a verdict: the author relabelled without the content's role leaves the role served unchanged (no "
        "visible effect); the cell is decided by the other variants. A timestamp relabelled in the column "
        "alone moves the event in the order served (`place=timestamp`)."),
    "adk-sessions-postgres": (
        "The same on PostgreSQL: whoever can write ADK's database (SQL on the server, or its data directory "
        "at rest) decides what the agent resumes with -- every edited, deleted, reordered, forged, copied or "
        "relabelled event, a rollback and a deleted session brought back are served by `get_session` as "
        "genuine, with no warning (the author-only T8 variant an error of its own, as on SQLite)."),
    "adk-sessions-sqlite-session-state": (
        "A session's state (`sessions.state`, a keyed map) is served by `get_session` as it is in the file: "
        "a changed, deleted, added or copied value, a restored older file and a deleted session brought back "
        "all reach the agent as genuine state. T2, T4 and T8 are n/a: a dict is read by key, in no order, "
        "and its values carry no metadata."),
    "adk-sessions-sqlite-user-state": (
        "A user's state (`user_states.state`, the `user:` keys an agent keeps across sessions) the same: "
        "every value changed, deleted, added or copied from another user, and a rolled-back file, is served "
        "as genuine. T2, T4 and T8 are n/a (a dict, no metadata); T10 is n/a: ADK erases no user state."),
    "adk-sessions-sqlite-app-state": (
        "An app's state (`app_states.state`, the `app:` keys every user of the app is served) the same: "
        "every value changed, deleted, added or copied from another app, and a rolled-back file, is served "
        "as genuine. T2, T4 and T8 are n/a (a dict, no metadata); T10 is n/a: ADK erases no app state."),
    "adk-sessions-postgres-session-state": (
        "On PostgreSQL a session's state is a jsonb value and the matrix is the SQLite one: every value "
        "changed, deleted, added or copied, a restored older data directory and a deleted session brought "
        "back are served as genuine. jsonb orders a map's keys itself, so an entry has no place to check "
        "(the lab reads it with no order); T2, T4 and T8 are n/a as on SQLite."),
    "adk-sessions-postgres-user-state": (
        "A user's state on PostgreSQL (jsonb): as on SQLite, every value changed, deleted, added or copied "
        "from another user, and a rollback, is served as genuine; T2, T4, T8 and T10 n/a."),
    "adk-sessions-postgres-app-state": (
        "An app's state on PostgreSQL (jsonb): as on SQLite, every value changed, deleted, added or copied "
        "from another app, and a rollback, is served as genuine; T2, T4, T8 and T10 n/a."),
    "langgraph-store-postgres": (
        "PostgresStore is no different from SqliteStore: whoever can write the database (SQL on the server, "
        "or its data directory at rest) decides what a LangGraph agent's long-term memory holds -- every "
        "edited, deleted, forged, swapped or copied item, a changed `updated_at`, a rollback and an erased "
        "item put back are served by `search` as genuine, with no warning."),
    "langmem-sqlite": (
        "LangMem's memory tools add nothing to the store under them: whatever `store.db` holds, "
        "`search_memory` hands the agent as its own memories -- every edited, deleted, forged, swapped or "
        "copied memory, a changed `updated_at`, a rolled-back file and a deleted memory brought back, with "
        "no warning."),
    "langchain-postgres-history": (
        "`PostgresChatMessageHistory.get_messages` serves whatever the `chat_history` rows of the session "
        "hold: every edited, deleted, reordered, forged, copied or consistently relabelled message, a "
        "rollback of the data directory and a cleared session brought back reach the next turn as genuine "
        "history (a role relabelled in one of its two places alone fails LangChain's message validation: a "
        "check of shape, not of integrity)."),
    "agno-sqlite": (
        "Whatever `agno_memories` holds for a user is what `MemoryManager` puts in the agent's system "
        "prompt: every edited, deleted, reordered, forged or copied memory, a moved `updated_at`, a restored "
        "older `agno.db` and a deleted memory brought back are served as the agent's own, with no warning."),
    "agno-sqlite-sessions": (
        "An Agno session's history is whatever its rows in `agno_runs` say: every edited, deleted, "
        "reordered, forged or copied run, a relabelled role or time, a restored older `agno.db` and a "
        "deleted run brought back are served by `get_chat_history` as genuine conversation, with no "
        "warning -- a forged run once it names the victim's session and user in its columns and its "
        "`run_data` alike (every edit here keeps all four)."),
    "pydantic-ai-memory-file": (
        "Pydantic AI's Memory capability keeps what an agent remembers as plain Markdown lines in "
        "`MEMORY.md` and shows them to the model at the start of every run; on FileStore every edit of the "
        "file -- a changed fact, a deleted, reordered or forged line, a line copied from another user, a "
        "rollback, an erased line brought back -- is served as genuine, with no warning. A line has no "
        "owner, role, source or time (T8 n/a), and the file's version only guards against two writers; no "
        "read checks it. On SqliteMemoryStore (row pydantic-ai-memory) the same lines sit in one database "
        "value per user, and the matrix is the same."),
    "pydantic-ai-memory": (
        "On SqliteMemoryStore, the harness's SQL store, a user's notebook is one `content` value of a "
        "`memory_files` row: rewritten in place line by line (its version, the receipts and every other row "
        "left as they were), every edit -- a changed fact, a deleted, reordered or forged line, a line copied "
        "from another user, a rollback, an erased line brought back -- is served as genuine, with no warning, "
        "as on FileStore. The version is a compare-and-swap token for writers; no read checks it. T8 is n/a: "
        "a line has no owner, role, source or time."),
    "autogen-state": (
        "AutoGen's saved agent state (`save_state` as a JSON file per conversation, as its state tutorial "
        "persists it) is loaded back by `load_state` with a check of its shape only: every edited, deleted, "
        "reordered, forged or copied message, a relabelled role (the message's type, with its source or "
        "alone), a restored older file and a reset conversation brought back reach the agent's model "
        "context as genuine, with no warning. Relabelling only the sender's name (`source`) changes nothing "
        "served, since the message's type decides its role: that T8 variant is an error of its own, not a "
        "verdict."),
}
#: Seconds to build each driver folder's virtual environment on an empty memlab cache (pip's own
#: wheel cache warm), 2-core machine, measured 2026-11-30 with LocalRuntime.prepare.
#: langgraph-sqlite: the folder's environment gained langgraph-checkpoint-postgres and psycopg for the
#: langgraph-postgres row; rebuilt 2026-11-30 under the same conditions in 39.5 s (was 73.8 s).
#: crewai: measured 2026-11-30 the same way (about 1 GB installed).
#: hermes-memory-md: measured 2026-12-01 the same way (the first local run's prepare_seconds).
#: langgraph-redis runs on the docker runtime only (its Redis Stack server links OpenSSL 1.1): the
#: build of its SUT image, memlab/sut-langgraph-redis, on an empty pip cache, 2026-12-01.
#: openclaw-memory-md: its own image on the docker runtime, `memlab images build sut-openclaw-memory-md` on an
#: engine holding only the base, 2026-12-01 (load average 11-16 from other work; 283 s at a lower load).
#: letta: measured 2026-12-01 the same way (the first local run's prepare_seconds, about 1 GB installed)
#: while the machine was loaded (load average 20-50), pip's cache holding part of the set.
#: langgraph-store: measured 2026-12-03 the same way (LocalRuntime.prepare, 33.1 s; load average 1.4).
#: adk-sessions: the first local run's prepare_seconds, 2026-12-03, pip's cache holding the set (load average 1.5),
#: after asyncpg joined the folder's pins for the PostgreSQL row (40.1 s before it).
#: langgraph-store, langmem, langchain-postgres, agno, pydantic-ai: not measured on an empty cache (no build time shown).
ENV_BUILD = {"langgraph-sqlite": 39.5, "langgraph-store": 33.1, "openai-agents": 54.1, "llamaindex": 117.8, "mem0": 35.1, "crewai": 90.6,
             "hermes-memory-md": 42.2, "langgraph-redis": 85.0, "openclaw-memory-md": 455.6, "letta": 347.8,
             "adk-sessions": 59.2}


def notes(name: str, saved: dict, row: dict) -> str:
    """The row's notes: those of its profile in sut_profiles/ where the profile is still the one the set
    was measured with in all but its notes (reworded since: a document of the project named instead of
    one outside it), else those the set was measured with (``saved``: its profile.json)."""
    current = load_profile(ROOT / "sut_profiles" / f"{name}.yaml").to_json()
    same = {k: v for k, v in current.items() if k != "notes"} == {k: v for k, v in saved.items() if k != "notes"}
    return current.get("notes") if same else row.get("notes")


def seconds(run: dict) -> float:
    start, end = (datetime.fromisoformat(run[k]) for k in ("started", "finished"))
    return (end - start).total_seconds()


def main() -> None:
    out = ["# Framework rows: agent memory layers with no integrity claim", "",
           "Measured on the local runtime (`memlab run --runtime local --sut '<row>'`) unless the row names",
           "another (langgraph-redis, openclaw-memory-md: the docker runtime); each result set is",
           "committed under `results/published/<row>/` and re-measured by `tests/rows/test_published_rows.py`",
           "(a row with checks of its own by `tests/rows/test_<row>.py`)",
           "(`python3 -m pytest tests/rows -q`). Generated from those result sets by",
           "`scripts/framework_rows_doc.py`. REJ refused · REP reported at read · ACC accepted (fail) ·",
           "n/a not expressible (reason in the row) · ERR harness error.", ""]
    for name, for_user in ROWS.items():
        base = ROOT / "results" / "published" / name
        rows = published_rows(name)
        out += [f"## {name}", ""]
        if not rows:
            out += ["Not measured yet.", ""]
            continue
        r0 = rows[0]
        run = json.loads((base / "run.json").read_text())
        version = installed_version(r0)
        profile = base / "observations" / name / "profile.json"
        saved = json.loads(profile.read_text()) if profile.is_file() else {}
        build, own = ENV_BUILD.get(saved.get("driver")), " (its own image)" if saved.get("image") else ""
        out += [f"{r0['title']}. SUT {r0['sut']['package']} {r0['sut']['version']} (installed: {version}); "
                f"position: {r0.get('position')}; run {r0.get('run_id')} on {r0.get('date')}; "
                + (f"runtime {run['runtime']}{own}; " if run.get("runtime") != "local" else "")
                + f"run {seconds(run):.0f} s"
                + (f", {'image' if run.get('runtime') == 'docker' else 'environment'} build {build:.0f} s on an empty cache"
                   if build else "")
                + ".", "", *matrix(rows)]
        na = sorted({r0["cells"][c].get("reason") for c in CASE_IDS if r0["cells"][c]["verdict"] == "n/a"})
        out += ["", f"**For a user:** {for_user}", ""]
        if na:
            out += ["n/a: " + "; ".join(na) + ".", ""]
        out += [f"Notes: {notes(name, saved, r0)}", ""]
    (ROOT / "docs" / "rows.md").write_text("\n".join(out), encoding="utf-8")


if __name__ == "__main__":
    main()
