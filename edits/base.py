"""The interface every generic editor implements, and the registry by backend.

An editor is built from a :class:`~edits.layout.StoreLayout` and the host paths
of the SUT's volumes. It reads records and applies one edit (T1..T8). Whole-store
snapshots (T9/T10) are volume operations, in :mod:`edits.volumes`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from edits.layout import StoreLayout
from edits.model import AppliedEdit, EditSpec, Record


class Editor(Protocol):
    """Generic editor of one backend; no SUT code is ever imported."""

    layout: StoreLayout

    def records(self) -> list[Record]:
        """Every record of every context, sorted by (context, order)."""
        ...

    def apply(self, spec: EditSpec) -> AppliedEdit:
        """Apply exactly one edit and return what was actually done."""
        ...


def editor_for(layout: StoreLayout, volumes: dict[str, Path], services: dict[str, str] | None = None,
               versions: dict[str, str] | None = None) -> Editor:
    """The editor for ``layout.backend``: on a volume path, or connected to a running service's URL.

    ``versions`` (version value -> seeded marker, from the SUT's answers to the seeding
    writes) reaches the editor of list-element records (``records:``), which needs it to
    roll a context back to an earlier version (T2) and to label opaque version rows.
    """
    if layout.backend == "redis":
        from edits.redis import RedisEditor

        return RedisEditor(layout, _service_url(layout, services))
    if layout.backend == "postgres":
        from edits.postgres import PostgresEditor, PostgresListEditor

        if layout.records is not None:
            return PostgresListEditor(layout, _service_url(layout, services), versions)
        return PostgresEditor(layout, _service_url(layout, services))
    if layout.volume not in volumes:
        raise ValueError(f"layout names volume {layout.volume!r}, which the profile does not declare")
    if layout.backend == "qdrant":
        from edits.qdrant import QdrantEditor

        return QdrantEditor(layout, volumes[layout.volume])
    if layout.backend == "lancedb":
        from edits.lancedb import LanceDBEditor

        return LanceDBEditor(layout, volumes[layout.volume])
    from edits import jsondoc, jsonl, markdown, sqlite

    table = {"sqlite": sqlite.SqliteEditor, "jsonl": jsonl.JsonlEditor,
             "markdown": markdown.MarkdownEditor, "json": jsondoc.JsonDocEditor}
    try:
        cls = table[layout.backend]
    except KeyError:
        raise ValueError(f"no editor for backend {layout.backend!r}") from None
    if layout.records is not None:
        from edits.lists import ListEditor

        return ListEditor(layout, volumes[layout.volume], versions)
    return cls(layout, volumes[layout.volume])


def _service_url(layout: StoreLayout, services: dict[str, str] | None) -> str:
    if not services or layout.service not in services:
        raise ValueError(f"the {layout.backend} editor needs service {layout.service!r} running; none was given")
    return services[layout.service]
