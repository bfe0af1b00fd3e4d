"""The generic editors must never load SUT code: checked statically and at run time."""

import ast
import subprocess
import sys
from pathlib import Path

EDITS = Path(__file__).resolve().parents[2] / "edits"
# Generic storage clients (the backend's own protocol), never a SUT's code. qdrant_client: Qdrant's
# own client, the only supported reader/writer of its local-mode folder (pickled points in SQLite);
# lancedb: LanceDB's own library, the reader/writer of Lance datasets (versioned manifests, fragments).
STORAGE_CLIENTS = {"psycopg", "redis", "qdrant_client", "lancedb"}
ALLOWED_TOP = set(sys.stdlib_module_names) | {"edits"} | STORAGE_CLIENTS


def imported_modules(path: Path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                "import_module", "__import__"):
            yield node.lineno, "edits.<own module>" if _own_module(node) else "<dynamic import>"


def _own_module(call: ast.Call) -> bool:
    """A dynamic import of a module of edits/ itself -- its name an f-string that starts with the literal
    "edits." (edits.registry finds the backend modules so) -- each checked here as a file of its own."""
    name = call.args[0] if call.args else None
    return (isinstance(name, ast.JoinedStr) and bool(name.values) and isinstance(name.values[0], ast.Constant)
            and str(name.values[0].value).startswith("edits.") and not call.keywords and len(call.args) == 1)


def test_edits_imports_only_the_standard_library_itself_and_storage_clients():
    offenders = [f"{p.name}:{line}: {mod}" for p in sorted(EDITS.rglob("*.py"))
                 for line, mod in imported_modules(p) if mod.split(".")[0] not in ALLOWED_TOP]
    assert offenders == [], "edits/ must not import SUT or third-party code:\n" + "\n".join(offenders)


def test_importing_every_editor_loads_no_sut_package():
    code = ("import sys, edits.base, edits.sqlite, edits.jsonl, edits.markdown, edits.volumes, edits.lists, edits.qdrant, edits.lancedb;"
            "import edits.version_rows, edits.registry; edits.registry.backends();"
            "bad=[m for m in sys.modules if m.split('.')[0] in ('refmem','memlab_driver','lab')];"
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=EDITS.parent, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_checker_catches_an_offending_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import langgraph\nfrom refmem import store\n")
    assert [m for _, m in imported_modules(bad)] == ["langgraph", "refmem"]


def test_the_checker_lets_through_only_dynamic_imports_of_edits_own_modules(tmp_path):
    code = tmp_path / "dyn.py"
    code.write_text("import importlib\n"
                    "importlib.import_module(f'edits.{name}')\n"
                    "importlib.import_module(name)\n"
                    "importlib.import_module(f'{pkg}.x')\n"
                    "importlib.import_module('refmem')\n"
                    "__import__(f'edits.{name}', fromlist=['x'])\n")
    assert [m for _, m in imported_modules(code)] == ["importlib", "edits.<own module>", "<dynamic import>",
                                                      "<dynamic import>", "<dynamic import>", "<dynamic import>"]
