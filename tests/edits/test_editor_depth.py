"""How deep the editors' class hierarchy is (``len(cls.__mro__)``, the class and ``object`` counted):
an editor is composed of what it uses -- a keyed map's entries (edits.maps.MapEditor) hold the SQL
dialect editor they read and write through, list elements (edits.lists.ListEditor) the store of their
version rows (a SQL table through its dialect editor, or RedisJSON documents) -- rather than inheriting
a stack of mixins."""

import importlib
import inspect
import pkgutil
from pathlib import Path

import edits
from edits.plan import EditorBase

DEPTH = 6  # e.g. SqliteEditor: SqliteEditor, SqlEditor, SlotRefs, PlaceVariants, EditorBase, object


def editor_classes() -> list[type]:
    """Every class of edits/ that is an editor (a subclass of EditorBase)."""
    out = []
    for info in pkgutil.iter_modules([str(Path(edits.__file__).parent)]):
        module = importlib.import_module(f"edits.{info.name}")
        out += [c for _, c in inspect.getmembers(module, inspect.isclass)
                if issubclass(c, EditorBase) and c.__module__ == module.__name__]
    return out


def too_deep(classes) -> dict[str, int]:
    """The classes deeper than their bound, with their depth."""
    return {c.__name__: len(c.__mro__) for c in classes if len(c.__mro__) > DEPTH}


def test_no_editor_is_deeper_than_its_bound():
    assert too_deep(editor_classes()) == {}, f"editors deeper than {DEPTH} classes (compose them instead)"


def test_a_map_editor_holds_its_dialect_instead_of_inheriting_it():
    from edits.maps import MapEditor

    assert len(MapEditor.__mro__) == 3  # MapEditor, EditorBase, object
    assert "SqlEditor" not in {c.__name__ for c in MapEditor.__mro__}


def test_a_list_editor_holds_its_rows_store_instead_of_inheriting_a_dialect():
    from edits import postgres, redis_json, registry, sqlite
    from edits.lists import ListEditor

    names = {c.__name__ for c in ListEditor.__mro__}
    assert len(ListEditor.__mro__) <= DEPTH and not names & {"SqlEditor", "SqliteEditor", "PostgresEditor"}
    built = {b.name: b.list_editor for b in registry.backends() if b.name in ("sqlite", "postgres", "redis")}
    # each backend builds the one ListEditor over its store
    assert built == {"sqlite": sqlite.list_editor, "postgres": postgres.list_editor, "redis": redis_json.list_editor}


def test_the_bound_catches_a_deeper_editor():
    mixins = [type(f"Mixin{i}", (), {}) for i in range(DEPTH)]
    deeper = type("Deeper", (*mixins, EditorBase), {})
    assert too_deep([deeper]) == {"Deeper": DEPTH + 3}
    assert too_deep([type("Shallow", (EditorBase,), {})]) == {}
