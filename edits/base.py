"""The interface every generic editor implements, and the editor of a layout.

An editor is built from a :class:`~edits.layout.StoreLayout` and the host paths
of the SUT's volumes (or the URL of its running service). It reads records and
applies one edit (one operation, :mod:`edits.ops`). Whole-store snapshots are volume
operations, in :mod:`edits.volumes`. Which editor serves which backend is declared by each
editor module (:mod:`edits.registry`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from edits import registry
from edits.confine import confine
from edits.layout import LayoutError, StoreLayout
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

    # Optional: ``variants(spec, records) -> list[str]``, the names of the other expressions of
    # ``spec`` this store allows (``EditSpec.variant``); an editor without it offers none.


def editor_for(layout: StoreLayout, volumes: dict[str, Path], services: dict[str, str] | None = None,
               versions: dict[str, str] | None = None) -> Editor:
    """The editor for ``layout.backend``: on a volume path, or connected to a running service's URL.

    The backend is looked up in :mod:`edits.registry` (each editor module declares its own). A
    volume holding a symlink out of it, a fifo or a device is refused (:mod:`edits.confine`).
    ``versions`` (version value -> seeded marker, from the SUT's answers to the seeding
    writes) reaches the editor of list-element records (``records:``), which needs it to
    roll a context back to an earlier version (a rollback) and to label opaque version rows.
    """
    try:
        backend = registry.backend(layout.backend)
    except LayoutError:
        raise ValueError(f"no editor for backend {layout.backend!r}") from None
    if backend.kind == registry.SERVICE:
        return backend.open(layout, _service_url(layout, services), versions)
    if layout.volume not in volumes:
        raise ValueError(f"layout names volume {layout.volume!r}, which the profile does not declare")
    confine(volumes[layout.volume])  # StoreEscape: a link out of the volume, a fifo or a device in it
    return backend.open(layout, volumes[layout.volume], versions)


def _service_url(layout: StoreLayout, services: dict[str, str] | None) -> str:
    if not services or layout.service not in services:
        raise ValueError(f"the {layout.backend} editor needs service {layout.service!r} running; none was given")
    return services[layout.service]
