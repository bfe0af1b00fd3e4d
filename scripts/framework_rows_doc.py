"""Write docs/rows.md from the committed result sets of the framework rows (issue 4).

Every matrix, version and run time in the document is read from
results/published/<row>/ (nothing typed by hand); the notes are the row's profile notes (:func:`notes`), and
the line saying what the measured matrix means for a user of that framework is the profile's
``for_users.at_rest``. What is written here by hand is the rows' order and the environment build times
measured on an empty cache. Run after re-publishing a row:

    python scripts/framework_rows_doc.py
"""

from __future__ import annotations

import json
from datetime import datetime

from rows_doc_common import CASE_IDS, ROOT, installed_version, matrix, published_rows, write_page

from lab.profile import load_profile  # noqa: E402  (rows_doc_common put the repository on the path)

#: The rows of the page, in its order; what each row's matrix means for a user is its profile's
#: ``for_users.at_rest``.
ROWS = (
    "langgraph-sqlite", "langgraph-sqlite+aes", "langgraph-postgres", "langgraph-redis",
    "langgraph-redis+serve-unusable", "langgraph-store-sqlite", "openai-agents-sqlite-session",
    "llamaindex-memory-sqlite", "mem0-qdrant-local", "crewai-ltm-lancedb", "hermes-memory-md", "openclaw-memory-md",
    "letta-block-history", "adk-sessions-sqlite", "adk-sessions-postgres", "adk-sessions-sqlite-session-state",
    "adk-sessions-sqlite-user-state", "adk-sessions-sqlite-app-state", "adk-sessions-postgres-session-state",
    "adk-sessions-postgres-user-state", "adk-sessions-postgres-app-state", "langgraph-store-postgres",
    "langmem-sqlite", "langchain-postgres-history", "agno-sqlite", "agno-sqlite-sessions", "pydantic-ai-memory-file",
    "pydantic-ai-memory", "autogen-state",
)
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


def for_user(name: str) -> str:
    """What the row's matrix means for a user of the framework: its profile's ``for_users.at_rest``."""
    return load_profile(ROOT / "sut_profiles" / f"{name}.yaml").for_users.at_rest


#: Profile fields the at-rest measurement does not read (the fork server changes how fast, never what is
#: measured): a set measured before one was added or changed is still measured with the profile of today;
#: so are the configuration's lines about the front door.
NOT_AT_REST = {"notes", "lifecycle", "frontdoor", "measurements", "fork_server"}


def at_rest_part(profile: dict) -> dict:
    """What of a profile (its JSON) the at-rest measurement reads."""
    out = {k: v for k, v in profile.items() if k not in NOT_AT_REST}
    out["configuration"] = {k: v for k, v in (out.get("configuration") or {}).items() if not k.startswith("frontdoor_")}
    return out


def notes(name: str, saved: dict, row: dict) -> str:
    """The row's notes: those of its profile in sut_profiles/ where the profile is still the one the set
    was measured with in all the at-rest measurement reads (its notes reworded since, a document of the
    project named instead of one outside it; blocks of the other measurements added), else those the set
    was measured with (``saved``: its profile.json)."""
    current = load_profile(ROOT / "sut_profiles" / f"{name}.yaml").to_json()
    same = at_rest_part(current) == at_rest_part(saved)
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
    for name in ROWS:
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
        out += ["", f"**For a user:** {for_user(name)}", ""]
        if na:
            out += ["n/a: " + "; ".join(na) + ".", ""]
        out += [f"Notes: {notes(name, saved, r0)}", ""]
    write_page(ROOT / "docs" / "rows.md", "\n".join(out))


if __name__ == "__main__":
    main()
