"""The backend registry: a backend declared in one module -- here, this test module -- is a
backend like the built-in ones: its layout fields parse and validate, and editor_for serves
its editor, with no other module edited."""

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from edits import registry
from edits.base import editor_for
from edits.layout import LayoutError, parse_layout
from edits.layout_fields import LayoutError as FieldError
from edits.model import EditSpec, Record
from edits.plan import EditorBase, Outcome, Plan
from edits.registry import FILE, SERVICE, Backend, Field


class LinesEditor(EditorBase):
    """A toy store: one record a line, ``<context>|<text>``, in a file of a volume."""

    backend = "toylines"

    def __init__(self, layout, volume_path):
        self.layout, self.path = layout, Path(volume_path) / layout.file

    def files(self):
        return [self.path]

    def records(self):
        lines = self.path.read_text().splitlines()
        return [Record(ctx, (n,), n, text, locator={"line": n})
                for n, (ctx, text) in enumerate(line.split("|", 1) for line in lines)]

    def _delete(self, p: Plan) -> Outcome:
        lines = self.path.read_text().splitlines()
        del lines[p.target.locator["line"]]
        self.path.write_text("".join(f"{line}\n" for line in lines))
        return Outcome([f"delete line {p.target.locator['line'] + 1}"], [p.target.key()])


def _separator(value, store):
    if not isinstance(value, str) or len(value) != 1:
        raise FieldError("separator", "must be one character", 'e.g. separator: "|"')
    return value


def _no_dot_file(store):
    if str(store.get("file", "")).startswith("."):
        raise FieldError("file", "a toylines store is not a dot file", "name a visible file")


TOY = Backend("toylines", FILE, editor=LinesEditor, check=_no_dot_file,
              fields=(Field("separator", default="|", parse=_separator),
                      Field("encoding", required=True, fix="name the encoding, e.g. utf-8")))
STORE = {"backend": "toylines", "volume": "store", "file": "mem.txt", "context": "ctx", "order": "@position",
         "payload": "text", "encoding": "utf-8"}


@pytest.fixture
def toy():
    registry.register(TOY)
    yield TOY
    registry.unregister(TOY.name)


def test_a_backend_declared_outside_the_package_parses_and_edits(toy, tmp_path):
    layout = parse_layout(STORE)
    assert layout.backend == "toylines" and layout.options == {"separator": "|", "encoding": "utf-8"}
    assert layout.to_json()["options"] == {"separator": "|", "encoding": "utf-8"}
    (tmp_path / "mem.txt").write_text("A|mA1-q one\nA|mA2-q two\n")
    editor = editor_for(layout, {"store": tmp_path})
    assert isinstance(editor, LinesEditor)
    done = editor.apply(EditSpec("T3", "A", "mA1-q", op="delete"))
    assert done.statements == ["delete line 1"] and (tmp_path / "mem.txt").read_text() == "A|mA2-q two\n"


@pytest.mark.parametrize("change, field, message", [
    ({"separator": "||"}, "store.separator", "must be one character"),
    ({"encoding": None}, "store.encoding", "required for the toylines backend"),
    ({"file": ".mem"}, "store.file", "not a dot file"),
    ({"table": "t"}, "store.table", "read by the lancedb/postgres/sqlite/sqlite-lines editors, not toylines"),
    ({"records": {"text": ["t"], "version": "v"}}, "store.records", "edited on json-files, postgres, redis and sqlite, not toylines"),
])
def test_its_own_validation_and_the_common_rules_apply(toy, change, field, message):
    with pytest.raises(LayoutError) as err:
        parse_layout({**STORE, **change})
    assert err.value.field == field and message in str(err.value)


def test_its_fields_are_refused_on_other_backends(toy):
    sqlite = {"backend": "sqlite", "volume": "v", "file": "m.db", "table": "t", "context": "c", "order": "o",
              "payload": "p"}
    with pytest.raises(LayoutError, match="store.encoding: read by the toylines editor, not sqlite"):
        parse_layout({**sqlite, "encoding": "utf-8"})
    registry.unregister(TOY.name)
    with pytest.raises(LayoutError, match="store.encoding: unknown field"):
        parse_layout({**sqlite, "encoding": "utf-8"})
    with pytest.raises(LayoutError, match="unknown backend 'toylines'"):
        parse_layout(STORE)


def test_a_service_backend_reads_its_service_and_gets_the_url():
    backend = registry.register(Backend("toyservice", SERVICE, editor=lambda layout, url: ("editor", url)))
    try:
        assert backend.field_names() == ("service",)
        store = {"backend": "toyservice", "volume": "data", "context": "c", "order": "o", "payload": "p"}
        with pytest.raises(LayoutError, match="store.service: required for the toyservice backend"):
            parse_layout(store)
        layout = parse_layout({**store, "service": "db"})
        assert layout.file == ""
        assert editor_for(layout, {}, {"db": "toy://127.0.0.1:1"}) == ("editor", "toy://127.0.0.1:1")
    finally:
        registry.unregister("toyservice")


def test_a_name_is_declared_once():
    with pytest.raises(ValueError, match="already declared by edits.sqlite"):
        registry.register(Backend("sqlite", FILE, editor=LinesEditor))
    with pytest.raises(ValueError, match="kind must be"):
        Backend("toy", "cloud", editor=LinesEditor)
    with pytest.raises(ValueError, match=r"\['context', 'options'\] are the layout's own fields"):
        Backend("toy", FILE, editor=LinesEditor, fields=(Field("options"), Field("context")))


def test_the_built_in_backends_declare_themselves():
    declared = {b.name: (b.kind, b.module, b.field_names(), b.list_editor is not None) for b in registry.backends()}
    assert declared == {
        "json": ("file", "edits.jsondoc", (), False),
        "json-files": ("file", "edits.jsonfiles", ("context_encoding",), True),
        "jsonl": ("file", "edits.jsonl", (), False),
        "lancedb": ("file", "edits.lancedb", ("table", "context_pattern"), False),
        "markdown": ("file", "edits.markdown", ("record_pattern", "record_separator", "continuation"), False),
        "postgres": ("service", "edits.postgres", ("service", "table"), True),
        "qdrant": ("file", "edits.qdrant", ("collection", "context_pattern"), False),
        "redis": ("service", "edits.redis", ("service", "key", "latest", "cascade_keys"), True),
        "sqlite": ("file", "edits.sqlite", ("table", "triggers", "derived"), True),
        "sqlite-lines": ("file", "edits.sqlite_lines", ("table", "context_pattern", "record_pattern", "record_separator"),
                         False),
    }


def test_finding_the_backends_imports_no_storage_client():
    """A profile load parses its layout, which finds every backend: that costs no client import
    (qdrant_client and lancedb take a second or two each)."""
    code = ("import sys; from edits.layout import parse_layout; from edits import registry; registry.backends();"
            "parse_layout({'backend': 'sqlite', 'volume': 'v', 'file': 'f', 'table': 't', 'context': 'c',"
            " 'order': 'o', 'payload': 'p'});"
            "print(sorted(m for m in ('psycopg', 'redis', 'qdrant_client', 'lancedb') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2],
                          capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"



def test_warm_calls_a_backends_client_import_off_the_callers_thread_and_leaves_a_failure_to_the_editor():
    calls = []

    def client():
        calls.append(threading.current_thread().name)

    def failing():
        calls.append("failed")
        raise ImportError("no such client")

    for name, imported in (("toywarm", client), ("toyfail", failing), ("toycold", None)):
        registry.register(Backend(name, FILE, editor=LinesEditor, client=imported))
    try:
        registry.warm("toywarm").join(10)
        registry.warm("toyfail").join(10)  # raises nothing: the editor's own import will, where it is used
        assert calls == ["warm-toywarm", "failed"]
        assert registry.warm("toycold") is None and registry.warm("no-such-backend") is None
    finally:
        for name in ("toywarm", "toyfail", "toycold"):
            registry.unregister(name)


def test_the_storage_backends_clients_import_the_library_their_editor_uses():
    clients = {b.name: b.client for b in registry.backends() if b.client is not None}
    assert sorted(clients) == ["lancedb", "postgres", "qdrant", "redis"]
    assert [clients[n]().__name__ for n in sorted(clients)] == ["lancedb", "psycopg", "qdrant_client", "redis"]
