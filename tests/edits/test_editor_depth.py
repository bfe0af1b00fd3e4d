"""How deep the editors' class hierarchy is (``len(cls.__mro__)``, the class and ``object`` counted):
an editor is composed of what it uses -- a keyed map's entries (edits.maps.MapEditor) hold the SQL
dialect editor they read and write through -- rather than inheriting a stack of mixins. The editors of
list-element records (edits.lists) are still such a stack, and bounded where they stand, so that none
grows deeper while they wait to be composed."""

import importlib
import inspect
import pkgutil
from pathlib import Path

import edits
from edits.plan import EditorBase

DEPTH = 6  # e.g. SqliteEditor: SqliteEditor, SqlEditor, SlotRefs, PlaceVariants, EditorBase, object
#: The list-element editors, not yet composed: their depth today.
STACKED = {"SqliteListEditor": 12, "PostgresListEditor": 12, "RedisJsonListEditor": 8}


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
    return {c.__name__: len(c.__mro__) for c in classes if len(c.__mro__) > STACKED.get(c.__name__, DEPTH)}


def test_no_editor_is_deeper_than_its_bound():
    assert too_deep(editor_classes()) == {}, f"editors deeper than {DEPTH} classes (compose them instead)"


def test_a_map_editor_holds_its_dialect_instead_of_inheriting_it():
    from edits.maps import MapEditor

    assert len(MapEditor.__mro__) == 3  # MapEditor, EditorBase, object
    assert "SqlEditor" not in {c.__name__ for c in MapEditor.__mro__}


def test_the_bound_catches_a_deeper_editor():
    mixins = [type(f"Mixin{i}", (), {}) for i in range(DEPTH)]
    deeper = type("Deeper", (*mixins, EditorBase), {})
    assert too_deep([deeper]) == {"Deeper": DEPTH + 3}
    assert too_deep([type("Shallow", (EditorBase,), {})]) == {}
