"""Generic editor for one JSON document per context, its records the elements of a list inside it.

``layout.file`` is a pattern with ``{context}`` (``states/{context}.json``); the context is the
file's name there, percent-decoded when ``context_encoding: percent`` (a name that is not what
``quote(context, safe='')`` writes is an error). Every element of the list at ``payload.path``
inside the document is one record (``records:`` without version rows: text, identity and
metadata are paths inside an element, :mod:`edits.layout_records`); its order and, without
``records.identity``, its identity are its place in the list. The element edits are those of
:mod:`edits.elements`: a delete removes an element (a rollback the newest), a swap exchanges two
(variant ``swap=contents``: their texts), a forge appends a forged copy, a transplant puts a copy of
the donor (from any context's file) in the victim's place, a set_meta relabels at every place of
the field (variant ``place=<path>``: one place). Only files found by listing the volume are written (the volume
confined, :mod:`edits.confine`), in place (inode, owner and mode kept), in the document's own
formatting: its indentation, separators and key order, else only the list's characters replaced.

Example::

    >>> import json, tempfile, pathlib
    >>> from edits import jsonfiles, layout, model
    >>> vol = pathlib.Path(tempfile.mkdtemp())
    >>> msgs = [{"content": f"mA{i}-q note", "type": "UserMessage"} for i in range(3)]
    >>> _ = (vol / "acme%2Falice.json").write_text(json.dumps({"ctx": {"messages": msgs}}))
    >>> lay = layout.parse_layout({"backend": "json-files", "volume": "store", "file": "{context}.json",
    ...                            "context_encoding": "percent", "order": "@position",
    ...                            "payload": {"field": "document", "format": "json", "path": ["ctx", "messages"]},
    ...                            "records": {"text": ["content"]}})
    >>> editor = jsonfiles.JsonFilesEditor(lay, vol)
    >>> [r.key() for r in editor.records()]
    ['acme/alice|0', 'acme/alice|1', 'acme/alice|2']
    >>> editor.apply(model.EditSpec("demo", "acme/alice", "mA0-q", second="mA2-q", op="swap")).statements
    ['acme%2Falice.json: exchange elements 0 and 2 of ctx.messages']
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from edits import paths
from edits.confine import confine
from edits.elements import ElementEdits, element_record
from edits.layout import StoreLayout
from edits.layout_fields import LayoutError
from edits.markdown import context_re
from edits.model import EditError, EditSpec, Record
from edits.ops import SET_META, SWAP
from edits.places import meta_variants
from edits.plan import SWAP_CONTENTS, EditorBase
from edits.records import sort_records
from edits.registry import FILE, Backend, Field, register

ENCODINGS = ("none", "percent")
_INDENTS = (None, 2, 4, 1, 3, 8, "\t")


class JsonFilesEditor(ElementEdits, EditorBase):
    """Edits the list-element records of the per-context JSON documents ``layout.file`` of one volume."""

    backend = "json-files"

    def __init__(self, layout: StoreLayout, volume_path: Path, versions: dict[str, str] | None = None):
        if layout.records is None:
            raise ValueError("the json-files editor needs a layout with records:")
        self.layout, self.spec, self.root = layout, layout.records, Path(volume_path)
        self.file_re = context_re(layout.file)
        self.percent = layout.options.get("context_encoding") == "percent"

    def variants(self, spec: EditSpec, records: list[Record]) -> list[str]:
        """A swap's ``swap=contents``; a set_meta's one ``place=`` per place of a field kept at several."""
        if spec.op == SET_META:
            return meta_variants(self.spec.places_of(spec.meta_field)) if spec.meta_field in self.spec.metadata else []
        return [SWAP_CONTENTS] if spec.op == SWAP else []

    def files(self) -> list[Path]:
        """Every context document: the regular files of the volume that match the pattern."""
        confine(self.root)  # no link out of the volume, no fifo or device
        glob = self.layout.file.replace("{context}", "*")
        return sorted(p for p in self.root.glob(glob) if p.is_file() and not p.is_symlink()
                      and self.file_re.match(p.relative_to(self.root).as_posix()))

    def context_of(self, rel: str) -> str:
        """The context a file's name holds (percent-decoded where the layout says so)."""
        name = self.file_re.match(rel).group("context")
        if not self.percent:
            return name
        try:
            context = unquote(name, errors="strict")
        except UnicodeDecodeError as exc:
            raise EditError(f"{rel}: the file name does not percent-decode to UTF-8 text ({exc.reason})") from None
        if quote(context, safe="") != name:
            raise EditError(f"{rel}: not a percent-encoded context name (quote({context!r}, safe='') is "
                            f"{quote(context, safe='')!r})")
        return context

    def records(self) -> list[Record]:
        """Every element of every context's list, sorted by (context, position)."""
        out = []
        for path in self.files():
            rel = path.relative_to(self.root).as_posix()
            context = self.context_of(rel)
            for i, element in enumerate(self._elements(rel, self._load(path)[0])):
                out.append(element_record(self.spec, context, i, element, {"file": rel, "index": i}))
        return sort_records(out)

    # -- the documents ----------------------------------------------------
    def _load(self, path: Path) -> tuple[Any, str]:
        rel = path.relative_to(self.root).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
            return json.loads(text), text
        except (ValueError, UnicodeDecodeError) as exc:
            raise EditError(f"{rel}: not a JSON document: {exc}") from None

    def _elements(self, rel: str, doc: Any) -> list[Any]:
        found = paths.get_path(doc, self.layout.payload.path)
        if found is paths.MISSING:
            return []  # no list yet (a context's first, empty state)
        if not isinstance(found, list):
            raise EditError(f"{rel}: the value at {list(self.layout.payload.path)} is not a list")
        return found

    def _path(self, record: Record) -> Path:
        path = self.root / record.locator["file"]
        if path not in self.files():
            raise EditError(f"{record.locator['file']}: the document of record {record.key()} is gone")
        return path

    def _edit_list(self, record: Record, change, variant: str | None = None) -> tuple[list[str], dict[str, Any]]:
        """Let ``change(items)`` edit the list of ``record``'s document; write it back in its formatting."""
        path, rel = self._path(record), record.locator["file"]
        doc, text = self._load(path)
        items = list(self._elements(rel, doc))
        operation = change(items)
        new = _formatted(text, doc, self.layout.payload.path, items)
        with open(path, "r+b") as fh:  # in place: the same inode, owner and mode
            fh.write(new.encode("utf-8"))
            fh.truncate()
        return [f"{rel}: {operation}"], {"file": rel, "operation": operation}

    def _element_of(self, record: Record) -> Any:
        return self._elements(record.locator["file"], self._load(self._path(record))[0])[record.order]

    def _all_elements(self) -> list[Any]:
        return [e for p in self.files() for e in self._elements(p.name, self._load(p)[0])]

    def _list_name(self) -> str:
        return ".".join(self.layout.payload.path) or "the document's list"

    def _where(self, record: Record) -> str:
        return record.locator["file"]


def _formatted(text: str, doc: Any, path: tuple[str, ...], items: list) -> str:
    """``text`` with the list at ``path`` now ``items``: dumped in the style that reproduces ``text``
    (indent, separators, ASCII escapes; its trailing white space kept), else only the list's
    characters replaced (:func:`edits.paths.set_in_json`)."""
    body, trail = text.rstrip(), text[len(text.rstrip()):]
    for indent in _INDENTS:
        for seps in ((", ", ": "), (",", ":")) if indent is None else ((",", ": "), (", ", ": ")):
            for ascii_only in (True, False):
                style = {"indent": indent, "separators": seps, "ensure_ascii": ascii_only}
                if json.dumps(doc, **style) == body:
                    return json.dumps(paths.set_path(doc, path, items), **style) + trail
    return paths.set_in_json(text, path, items)


def _encoding(value: Any, store: dict) -> str:
    if value not in ENCODINGS:
        raise LayoutError("context_encoding", f"unknown encoding {value!r}", f"use one of {list(ENCODINGS)}")
    return value


def _check(store: dict) -> None:
    if "{context}" not in str(store.get("file", "")):
        raise LayoutError("file", "json-files stores keep one document per context",
                          "write the file as a pattern with {context}, e.g. states/{context}.json")
    if store.get("records") is None:
        raise LayoutError("records", "json-files records are the elements of a list in each document",
                          "declare records: {text: [content]} and payload.path, the list's path")


def _no_records_editor(layout: StoreLayout, volume_path: Path) -> Any:
    raise ValueError("the json-files editor edits list-element records (records:) only")


BACKEND = register(Backend(
    "json-files", FILE, editor=_no_records_editor, list_editor=JsonFilesEditor, list_versions=False,
    context_field=False, check=_check,
    fields=(Field("context_encoding", default="none", parse=_encoding,
                  fix=f"one of {list(ENCODINGS)}: how a file name holds the context"),)))
