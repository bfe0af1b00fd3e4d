"""lab/ is one package per role; each role imports only the roles below it (docs/design.md, "Roles").

The allowed directions are written once here and in each package's docstring; a role that
reaches up (the judge importing the method, a runtime importing the result set) fails.
"""

import ast
import re
from pathlib import Path

LAB = Path(__file__).resolve().parents[2] / "lab"

#: Roles every role may import: the one way memlab writes a file (lab.safewrite), its log (lab.logs) and
#: the base of its typed result files (lab.open_record), bottom roles.
ALWAYS = {"safewrite", "logs", "open_record"}
#: role -> the lab roles it may import (``edits``, the top-level ``lab`` constants and ALWAYS always).
ALLOWED = {
    "safewrite": set(),
    "logs": set(),
    "open_record": set(),
    "moments": set(),
    "profile": set(),
    "driver": set(),
    "runtime": {"moments", "profile", "driver"},
    "cases": set(),
    "judge": {"cases"},
    "compose": {"cases", "judge"},
    "resultset": {"moments", "profile", "cases", "judge", "compose"},
    "method": {"moments", "profile", "driver", "runtime", "cases", "judge", "resultset", "compose"},
    "report": {"cases", "judge", "resultset", "lifecycle", "frontdoor", "compose"},
    "lifecycle": {"profile", "driver", "runtime", "resultset"},
    "frontdoor": {"lifecycle", "resultset", "profile", "runtime"},
    "testing": {"runtime", "judge"},
    "sweep": {"profile", "runtime", "resultset", "lifecycle"},
    "cli": {"moments", "profile", "driver", "runtime", "cases", "judge", "resultset", "method", "report", "lifecycle",
            "frontdoor", "sweep", "compose"},
}


def role_of(path: Path) -> str:
    """The role a module of lab/ belongs to: its package, or its own name for a top module."""
    parts = path.relative_to(LAB).with_suffix("").parts
    return parts[0]


def lab_imports(path: Path):
    """(line, role) for every import of another lab role in a module."""
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + ([f"lab.{a.name}" for a in node.names] if node.module == "lab" else [])
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "lab" and len(parts) > 1 and parts[1] in ALLOWED:
                yield node.lineno, parts[1]


def test_every_module_of_lab_belongs_to_a_known_role():
    unknown = sorted({role_of(p) for p in LAB.rglob("*.py")} - set(ALLOWED) - {"__init__"})
    assert unknown == [], f"lab/ modules outside the role table: {unknown} (add them to ALLOWED and docs/design.md)"


def test_roles_import_only_the_roles_below_them():
    offenders = []
    for path in sorted(LAB.rglob("*.py")):
        role = role_of(path)
        if role == "__init__":
            continue
        for line, target in lab_imports(path):
            if target != role and target not in ALLOWED[role] | ALWAYS:
                offenders.append(f"{path.relative_to(LAB.parent)}:{line}: {role} imports {target}")
    assert offenders == [], "imports against the role directions:\n" + "\n".join(offenders)


def test_each_role_package_says_its_job_and_what_it_may_import():
    missing = [p.name for p in sorted(LAB.iterdir()) if p.is_dir() and (p / "__init__.py").exists()
               and "import" not in (ast.get_docstring(ast.parse((p / "__init__.py").read_text())) or "")]
    assert missing == [], f"packages whose docstring does not say what they may import: {missing}"


EDITS = LAB.parent / "edits"
CASE_ID = re.compile(r"^T[0-9]+$")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings (of the module, a class or a function)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _imported(node: ast.AST) -> list[str]:
    """The modules an import statement names (``from lab import cases``: ``lab.cases``)."""
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
    return [a.name for a in node.names] if isinstance(node, ast.Import) else []


def test_the_editors_import_no_case():
    offenders = [f"{path.relative_to(LAB.parent)}:{node.lineno}" for path in sorted(EDITS.glob("*.py"))
                 for node in ast.walk(ast.parse(path.read_text(), filename=str(path)))
                 if any(m == "lab.cases" or m.startswith("lab.cases.") for m in _imported(node))]
    assert offenders == [], "edits/ imports a module of lab.cases: " + ", ".join(offenders)


def test_the_editors_know_operations_not_case_ids():
    """No string constant of an editor module, outside its docstrings, is a case id ("T3"): the editors
    dispatch on ``EditSpec.op`` (edits.ops), and a case names the op it asks for (lab.cases)."""
    offenders = []
    for path in sorted(EDITS.glob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        docs = _docstrings(tree)
        offenders += [f"{path.relative_to(LAB.parent)}:{node.lineno}: {node.value!r}" for node in ast.walk(tree)
                      if isinstance(node, ast.Constant) and isinstance(node.value, str)
                      and CASE_ID.match(node.value) and id(node) not in docs]
    assert offenders == [], "case ids in the editors:\n" + "\n".join(offenders)


def _edits_imports(path: Path) -> list[tuple[int, str, bool]]:
    """(line, module of edits/, at module top) for every import of another module of edits/ in ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    top = {id(node) for node in tree.body}
    out = []
    for node in ast.walk(tree):
        names = {name.split(".")[1] for name in _imported(node) if name.startswith("edits.")}
        out += [(node.lineno, mod, id(node) in top) for mod in sorted(names) if (EDITS / f"{mod}.py").exists()]
    return [(line, mod, at_top) for line, mod, at_top in out if mod != path.stem]


def test_edits_imports_its_own_modules_at_module_top():
    late = [f"edits/{p.name}:{line}: edits.{mod}" for p in sorted(EDITS.glob("*.py"))
            for line, mod, at_top in _edits_imports(p) if not at_top]
    assert late == [], "imports of edits/ modules inside a function or a class (a circle dodged?):\n" + "\n".join(late)


CASE_WORD = re.compile(r"\bT[0-9]+(\.v[0-9]+)?\b")


def test_the_editors_docstrings_and_messages_name_no_case():
    """An editor's docstrings, comments and messages speak of operations (``replace``, ``forge``, ...), never
    of a case ("T5", "T3.v1"), and no message of its own names the spec's case (``spec.case``: the lab's
    id, which an editor only reports back in ``AppliedEdit.case``)."""
    offenders = []
    for path in sorted(EDITS.glob("*.py")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if CASE_WORD.search(line) or (".case}" in line):
                offenders.append(f"edits/{path.name}:{n}: {line.strip()}")
    assert offenders == [], "case ids in edits/:\n" + "\n".join(offenders)

def _module_name(path: Path) -> str:
    parts = path.relative_to(LAB.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for root in (LAB, EDITS) for p in root.rglob("*.py")}


def imports_in(source: str, name: str, modules: set[str]) -> set[str]:
    """The ``modules`` that module ``name`` (its ``source``) imports, anywhere in it: an import inside a
    function holds a circle apart at run time, it does not break it. Imports under ``if TYPE_CHECKING:``
    are never run and are left out."""
    tree = ast.parse(source)
    skipped = {id(inner) for node in ast.walk(tree) if isinstance(node, ast.If)
               and "TYPE_CHECKING" in ast.unparse(node.test) for inner in ast.walk(node)}
    out = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                    for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return (out & modules) - {name}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every set of modules that import one another round a circle (the strongly connected components of
    ``graph``, module -> the modules it imports, with more than one module), each sorted."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(name: str) -> None:  # Tarjan's algorithm
        order[name] = low[name] = len(order)
        stack.append(name)
        for other in sorted(graph[name]):
            if other not in order:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in stack:
                low[name] = min(low[name], order[other])
        if low[name] == order[name]:
            component = [stack.pop()]
            while component[-1] != name:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))
    for name in sorted(graph):
        if name not in order:
            visit(name)
    return sorted(found)


def test_no_circle_of_imports_inside_a_package():
    """No modules of lab/ or edits/ import one another round a circle (the role directions above keep every circle
    inside one package), counting imports inside functions: what two modules both need goes to a module of
    its own, and every import is at the top."""
    graph = {name: imports_in(path.read_text(), name, set(MODULES)) for name, path in MODULES.items()}
    found = circles(graph)
    assert found == [], "circles of imports:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_circle_check_sees_a_circle_held_apart_inside_a_function():
    modules = {"lab.a", "lab.b", "lab.c"}
    sources = {"lab.a": "from lab.b import X\n", "lab.b": "from lab.c import Y\n",
               "lab.c": "def f():\n    from lab.a import Z\n"}
    assert circles({n: imports_in(s, n, modules) for n, s in sources.items()}) == [["lab.a", "lab.b", "lab.c"]]
    sources["lab.c"] = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from lab.a import Z\n"
    assert circles({n: imports_in(s, n, modules) for n, s in sources.items()}) == []
