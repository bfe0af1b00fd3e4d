"""The backends by name. Each editor module declares its own backend -- its name, whether its
store is files in a volume or a running service, the layout fields it reads beyond the common
ones (with their validation) and the editor classes -- and registers it here, so adding a
backend touches one module: the new ``edits/<backend>.py``.

The common fields (``backend``, ``volume``, ``file``, ``context``, ``identity``, ``order``,
``payload``, ``metadata``, ``records``, ``map``) are parsed by :func:`edits.layout.parse_layout` for every
backend; a backend's :class:`Field` declarations are the rest. A field no backend declares is an unknown
field; a field another backend declares is refused with the names of those that read it (unless
it is null, empty or the default ``StoreLayout.to_json`` writes, so that a layout's JSON parses). A
declared field whose name is an attribute of :class:`~edits.layout.StoreLayout` (``table``,
``key``, ``collection``, ...) is stored there; any other lands in ``StoreLayout.options``.

The editor modules of this package are found by listing the package (an import of ``edits.*``
only; each module is checked by ``tests/unit/test_no_sut_imports.py``), so an in-tree backend needs
no list to be edited (a module declares ``BACKEND = register(Backend(...))``, the way
:mod:`edits.sqlite` does); a backend outside the package calls :func:`register` itself. Backend
modules import their storage client (psycopg, redis, qdrant_client, lancedb) where they use it,
so finding the backends -- which every profile load does -- costs no client import.

Example (a backend of one's own; the built-in ones are declared the same way)::

    >>> from edits.layout import parse_layout
    >>> from edits.plan import EditorBase
    >>> from edits.registry import Backend, Field, register, unregister
    >>> class ToyEditor(EditorBase):
    ...     backend = "toy"
    ...     def __init__(self, layout, volume_path):
    ...         self.layout, self.root = layout, volume_path
    >>> _ = register(Backend("toy", "file", editor=ToyEditor,
    ...                      fields=(Field("bucket", required=True, fix="name the bucket"),)))
    >>> layout = parse_layout({"backend": "toy", "volume": "v", "file": "f", "context": "c",
    ...                        "order": "o", "payload": "p", "bucket": "b1"})
    >>> layout.options
    {'bucket': 'b1'}
    >>> parse_layout({"backend": "sqlite", "volume": "v", "file": "f", "table": "t", "context": "c",
    ...               "order": "o", "payload": "p", "bucket": "b1"})
    Traceback (most recent call last):
    edits.layout_fields.LayoutError: store.bucket: read by the toy editor, not sqlite (fix: drop it)
    >>> unregister("toy")
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from edits.layout_fields import LayoutError

__all__ = ["Backend", "Field", "register", "unregister", "backend", "backends", "readers", "warm", "FILE",
           "SERVICE", "COMMON_FIELDS"]

FILE = "file"  # the store is files in a volume; the editor gets the volume's host path
SERVICE = "service"  # the store is a running server; the editor gets its URL
COMMON_FIELDS = ("backend", "volume", "file", "context", "identity", "order", "payload", "metadata", "records", "map")
_RESERVED = {*COMMON_FIELDS, "meta_refs", "context_ref", "identity_refs", "scope", "options"}  # StoreLayout's own

_REGISTRY: dict[str, "Backend"] = {}
_found = False


@dataclass(frozen=True)
class Field:
    """A layout field a backend reads beyond the common ones.

    ``parse(value, store)`` validates the value (``store`` is the whole ``store:`` mapping) and
    returns what the layout keeps, raising :class:`~edits.layout_fields.LayoutError`; the
    default takes a non-empty string. A field that is absent (or empty) takes ``default``, or,
    when ``required``, is an error whose fix is ``fix``.
    """

    name: str
    required: bool = False
    default: Any = None
    parse: Callable[[Any, dict], Any] | None = None
    fix: str = ""

    def read(self, store: dict, backend: str) -> Any:
        """The field's value in ``store`` as the layout keeps it."""
        value = store.get(self.name)
        if value is None or value == "":
            if self.required:
                raise LayoutError(self.name, f"required for the {backend} backend",
                                  self.fix or f"set store.{self.name}")
            return self.default
        if self.parse is not None:
            return self.parse(value, store)
        if not isinstance(value, str):
            raise LayoutError(self.name, "must be a non-empty string", self.fix or f"set store.{self.name}")
        return value


@dataclass(frozen=True)
class Backend:
    """A backend's declaration (see the module).

    ``kind`` is :data:`FILE` or :data:`SERVICE` (a service backend also reads the layout's
    ``service``, required: the profile's service the editor connects to). ``editor(layout,
    where)`` builds the editor -- ``where`` the volume's host path or the service's URL;
    ``list_editor(layout, where, versions)``, when given, the one for list-element records
    (``records:``, :mod:`edits.lists`), its lists in version rows (``records.version``) unless
    ``list_versions`` is False (one list per context, :mod:`edits.jsonfiles`); ``map_editor(layout,
    where)`` the one for the entries of a keyed map (``map:``, :mod:`edits.maps`). ``field_paths``:
    the context, identity and metadata entries may name a path inside a field. ``context_field``:
    False when the context comes from a name (a file name, a key) and ``context:`` is optional.
    ``check(store)`` validates across fields, after each field is read. ``client()`` imports the
    storage client, which the editor imports where it first uses it (:func:`warm` calls it ahead,
    off the row's path).
    """

    name: str
    kind: str
    editor: Callable[[Any, Any], Any]
    fields: tuple[Field, ...] = ()
    list_editor: Callable[[Any, Any, Any], Any] | None = None
    list_versions: bool = True
    map_editor: Callable[[Any, Any], Any] | None = None
    field_paths: bool = False
    context_field: bool = True
    check: Callable[[dict], None] | None = None
    client: Callable[[], Any] | None = None
    module: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.kind not in (FILE, SERVICE):
            raise ValueError(f"backend {self.name!r}: kind must be {FILE!r} or {SERVICE!r}, not {self.kind!r}")
        taken = sorted(_RESERVED & set(self.field_names()))
        if taken:
            raise ValueError(f"backend {self.name!r}: {taken} are the layout's own fields, not a backend's")
        if self.kind == SERVICE and "service" not in self.field_names():
            service = Field("service", required=True,
                            fix="name the profile's service (services: {db: {kind: ..., volume: ...}})")
            object.__setattr__(self, "fields", (service, *self.fields))
        if not self.module:
            object.__setattr__(self, "module", getattr(self.editor, "__module__", ""))

    def field_names(self) -> tuple[str, ...]:
        """The names of the layout fields this backend reads beyond the common ones."""
        return tuple(f.name for f in self.fields)

    def open(self, layout: Any, where: Path | str, versions: dict[str, str] | None = None) -> Any:
        """The editor of ``layout`` on ``where`` (a volume path or a service URL)."""
        if layout.records is not None:
            if self.list_editor is None:
                raise ValueError(f"the {self.name} backend has no editor of list-element records")
            return self.list_editor(layout, where, versions)
        if getattr(layout, "map", None) is not None:
            if self.map_editor is None:
                raise ValueError(f"the {self.name} backend has no editor of a keyed map's entries")
            return self.map_editor(layout, where)
        return self.editor(layout, where)


def register(declared: Backend, replace: bool = False) -> Backend:
    """Make ``declared`` the backend of its name; a second, different declaration of a name is an
    error unless ``replace`` (re-importing the declaring module replaces its own)."""
    old = _REGISTRY.get(declared.name)
    if old is not None and not replace and old.module != declared.module:
        raise ValueError(f"backend {declared.name!r} is already declared by {old.module}")
    _REGISTRY[declared.name] = declared
    return declared


def unregister(name: str) -> None:
    """Forget the backend ``name`` (tests register toy backends and remove them)."""
    _REGISTRY.pop(name, None)


def backends() -> list[Backend]:
    """Every declared backend, by name."""
    _find()
    return [_REGISTRY[name] for name in sorted(_REGISTRY)]


def backend(name: Any) -> Backend:
    """The backend declared as ``name``; a LayoutError on ``store.backend`` if none is."""
    _find()
    if not isinstance(name, str) or name not in _REGISTRY:
        raise LayoutError("backend", f"unknown backend {name!r}", f"use one of {sorted(_REGISTRY)}")
    return _REGISTRY[name]


def warm(name: str) -> threading.Thread | None:
    """Import backend ``name``'s storage client in a daemon thread (lancedb's takes over a second), so
    that a row's first edit does not wait for it: started when the row is prepared and seeded,
    which wait on the SUT's process. A failed import is left for the editor to raise where it
    is used. None when the backend declares no client (or is unknown)."""
    _find()
    declared = _REGISTRY.get(name)
    if declared is None or declared.client is None:
        return None

    def load() -> None:
        try:
            declared.client()
        except Exception:  # noqa: BLE001  (the editor's own import raises it, with its context)
            pass

    thread = threading.Thread(target=load, name=f"warm-{name}", daemon=True)
    thread.start()
    return thread


def readers(test: Callable[[Backend], bool]) -> list[str]:
    """The names of the backends for which ``test`` holds (for messages: "read by sqlite, not ...")."""
    return [b.name for b in backends() if test(b)]


def _find() -> None:
    """Import every module of the package once, so each backend module declares itself."""
    global _found
    if _found:
        return
    _found = True  # before the imports: a module that looks a backend up while it loads sees no loop
    try:
        for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
            importlib.import_module(f"edits.{info.name}")
    except BaseException:
        _found = False
        raise
