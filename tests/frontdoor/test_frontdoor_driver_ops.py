"""The front door's driver path: the kit's three ops checked at the boundary, the lab's client refusing
a wrong answer, and every driver held to the rule that the SUT decides: no driver verifies a signature,
compares a label or a scope, or imports a way to verify one (an AST pin over every ``images/*/driver.py``
that offers the ops, and the same three rules over every ``images/*/driver.mjs`` that does, in JavaScript
terms), and every row taking the front door has a driver that offers them; the Node kit's front-door ops
answer as the Python kit's."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lab.driver import answer_problem
from lab.profile import load_profiles

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "images" / "driverkit"
OPS = ("frontdoor_open", "frontdoor_write", "frontdoor_read", "frontdoor_message")
SCOPE = {"tenant": "acme", "user": 42, "session": None}


@pytest.fixture()
def session():
    """The kit's dispatch over a toy driver keeping writes in a list (opened)."""
    sys.path.insert(0, str(KIT))
    try:
        from memlab_driver.dispatch import Session
        import memlab_driver as kit
    finally:
        sys.path.remove(str(KIT))

    class Toy(kit.Driver):
        def open(self, volumes, config):
            self.seen, self.answer = [], config.get("answer")

        def frontdoor_open(self, case, trust_root, fresh):
            self.seen.append(("open", case, trust_root, fresh))

        def frontdoor_write(self, scope, text, label, signature, tags):
            if text == "refuse me":  # the SUT (here the standard library's json) raises
                json.loads("{the store refuses this source")
            if text == "crash":  # the driver's own code raises
                return {"accepted": True, "stored": scope["nowhere"]}
            self.seen.append(("write", scope, text, label, signature, tags))
            self.seen.append(("signer", self.frontdoor_signer))
            return self.answer or {"accepted": True, "stored": {"text": text}}

        def frontdoor_message(self, scope, text, label, tags):
            return self.answer if self.answer is not None else f"{label}|{text}".encode()

        def frontdoor_read(self, scope, query, k, tag):
            return self.answer or [{"text": t[2], "marker": None} for t in self.seen if t[0] == "write"][:k]

    def ask(op, answer=None, **fields):
        sess = Session(Toy)
        sess.answer(json.dumps({"id": 1, "op": "open", "volumes": {}, "config": {"answer": answer}}).encode())
        reply = sess.answer(json.dumps({"id": 2, "op": op, **fields}).encode())
        return reply, sess.driver

    return ask


WRITE = {"scope": SCOPE, "text": "t", "label": "user", "signature": "ab" * 64, "tags": ["verified"]}


def test_the_ops_reach_the_driver_with_ids_and_bytes_as_sent(session):
    reply, driver = session("frontdoor_open", case="case-7", trust_root="01" * 32, fresh=True)
    assert reply["ok"] and driver.seen == [("open", "case-7", bytes([1]) * 32, True)]
    reply, driver = session("frontdoor_write", **WRITE)
    assert reply["ok"] and reply["result"] == {"accepted": True, "stored": {"text": "t"}}
    assert driver.seen == [("write", SCOPE, "t", "user", bytes([0xAB]) * 64, ["verified"]),  # 42 stays an int
                           ("signer", None)]
    assert answer_problem("frontdoor_write", reply, 2) is None
    reply, driver = session("frontdoor_write", **WRITE, signer="cd" * 32)
    assert reply["ok"] and driver.seen[-1] == ("signer", bytes([0xCD]) * 32)


def test_the_driver_says_which_bytes_its_sut_verifies_a_signature_over(session):
    reply, _ = session("frontdoor_message", scope=SCOPE, text="fact", label="user", tags=[])
    assert reply["ok"] and reply["result"] == {"message": b"user|fact".hex()}
    assert answer_problem("frontdoor_message", reply, 2) is None
    reply, _ = session("frontdoor_message", answer="not bytes", scope=SCOPE, text="fact", label="user", tags=[])
    assert not reply["ok"] and reply["refused"] is False and "as bytes" in reply["error"]["message"]
    assert "no result.message" in answer_problem("frontdoor_message", {"id": 2, "ok": True, "result": {}}, 2)


def test_a_sut_that_raises_refused_the_write(session):
    reply, _ = session("frontdoor_write", **{**WRITE, "text": "refuse me"})
    assert not reply["ok"] and reply["refused"] is True and reply["error"]["type"] == "JSONDecodeError"
    assert answer_problem("frontdoor_write", reply, 2) is None  # a refusal: the SUT's answer, not a fault


def test_a_driver_that_raises_failed_and_never_reads_as_a_refusal(session):
    reply, _ = session("frontdoor_write", **{**WRITE, "text": "crash"})
    assert not reply["ok"] and reply["refused"] is False, reply
    assert "the driver failed, not the SUT: KeyError" in reply["error"]["message"]
    assert answer_problem("frontdoor_write", reply, 2) is not None  # the lab's client: a harness error


MALFORMED = [
    ("frontdoor_open", {"case": "../x", "trust_root": "00", "fresh": True}, "case must be"),
    ("frontdoor_open", {"case": "c", "trust_root": "XYZ", "fresh": True}, "trust_root must be lower-case hex"),
    ("frontdoor_open", {"case": "c", "fresh": True}, "trust_root (hex) is required"),
    ("frontdoor_write", {**WRITE, "scope": {"tenant": "a", "user": "b"}}, "scope must be {tenant, user, session}"),
    ("frontdoor_write", {**WRITE, "scope": {**SCOPE, "user": True}}, "scope must be"),
    ("frontdoor_write", {**WRITE, "scope": {**SCOPE, "user": 1.5}}, "scope must be"),
    ("frontdoor_write", {**WRITE, "signature": "ab" * 600}, "signature must be lower-case hex"),
    ("frontdoor_write", {**WRITE, "tags": ["t"] * 33}, "tags must be at most 32"),
    ("frontdoor_write", {**WRITE, "tags": [1]}, "tags must be"),
    ("frontdoor_read", {"scope": SCOPE, "query": "q", "k": 0}, "k must be an integer from 1 to 1000"),
    ("frontdoor_read", {"scope": SCOPE, "query": "q", "k": True}, "k must be"),
]


@pytest.mark.parametrize("op, fields, said", MALFORMED)
def test_a_malformed_request_is_a_fault_never_a_refusal(session, op, fields, said):
    reply, driver = session(op, **fields)
    assert not reply["ok"] and reply["refused"] is False and said in reply["error"]["message"], reply
    assert [s for s in driver.seen if s[0] != "open"] == []
    assert answer_problem(op, reply, 2) is not None  # the lab's client takes it as a harness error


@pytest.mark.parametrize("op, answer", [
    ("frontdoor_write", {"stored": {}}), ("frontdoor_write", {"accepted": "yes"}),
    ("frontdoor_read", [{"text": 3}]), ("frontdoor_read", [{"text": "t", "marker": 1}]), ("frontdoor_read", {"t": 1}),
])
def test_a_driver_answering_the_wrong_shape_is_a_fault(session, op, answer):
    fields = WRITE if op == "frontdoor_write" else {"scope": SCOPE, "query": "q", "k": 3}
    reply, _ = session(op, answer=answer, **fields)
    assert not reply["ok"] and reply["refused"] is False, reply


@pytest.mark.parametrize("reply, problem", [
    ({"id": 2, "ok": True, "records": [{"text": "t"}]}, None),
    ({"id": 2, "ok": True, "records": [{"text": "t", "marker": 5}]}, "not a 'records' list"),
    ({"id": 2, "ok": True, "records": [{"id": 1}]}, "not a 'records' list"),
    ({"id": 2, "ok": True}, "not a 'records' list"),
])
def test_the_lab_checks_a_read_answer_at_the_boundary(reply, problem):
    found = answer_problem("frontdoor_read", reply, 2)
    assert (found is None) if problem is None else (problem in found)


# ---- the SUT decides: a pin over every driver offering the ops ----------------------------------------
#: Names whose value a driver hands to the SUT and must never decide on itself.
HANDED = {"label", "signature", "trust_root", "scope", "signer"}
CRYPTO = ("cryptography", "nacl", "hmac", "ecdsa", "ed25519")


def _offering(paths) -> dict[Path, ast.Module]:
    trees = {path: ast.parse(path.read_text()) for path in paths}
    return {path: tree for path, tree in trees.items()
            if any(isinstance(n, ast.FunctionDef) and n.name in OPS for n in ast.walk(tree))}


def _frontdoor_drivers() -> dict[str, ast.Module]:
    return {path.parent.name: tree for path, tree in _offering(sorted((ROOT / "images").glob("*/driver.py"))).items()}


#: The kit's modules whose ops drivers share (memlab_driver.langgraph_thread: the checkpointers'), read
#: by the same pin as the drivers.
KIT_OPS = {path.stem: tree for path, tree in
           _offering(sorted((ROOT / "images" / "driverkit" / "memlab_driver").glob("*.py"))).items()}


#: The ops as a Node driver's methods (images/driverkit-node/memlab_driver.mjs).
JS_OPS = ("frontdoorOpen", "frontdoorWrite", "frontdoorRead", "frontdoorMessage")
_JS_METHOD = re.compile(r"^[ \t]*(?:async[ \t]+)?(" + "|".join(JS_OPS) + r")[ \t]*\(([^)]*)\)[^{\n]*\{", re.M)


def _js_source(path: Path) -> str:
    """A JavaScript file without its comments and with every string literal's text blanked, so the rules
    read code only (a template literal's ``${...}`` expressions are kept)."""
    text, out, i = path.read_text(), [], 0
    while i < len(text):
        two, c = text[i:i + 2], text[i]
        if two == "//":
            i = text.find("\n", i)
            i = len(text) if i < 0 else i
        elif two == "/*":
            i = text.find("*/", i + 2) + 2 or len(text)
        elif c in "'\"":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        elif c == "`":
            j, depth = i + 1, 0
            out.append("`")
            while j < len(text) and (text[j] != "`" or depth):
                if text[j:j + 2] == "${" and not depth:
                    depth, j = 1, j + 2
                    out.append("${")
                    continue
                if depth:
                    depth += {"{": 1, "}": -1}.get(text[j], 0)
                    out.append(text[j] if depth else "}")
                j += 2 if text[j] == "\\" and not depth else 1
            out.append("`")
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def js_methods(source: str) -> dict[str, tuple[int, list[str], str]]:
    """Each front-door method of a Node driver (comments and strings already blanked): its line, its
    parameters and its body (up to the brace that closes it)."""
    found = {}
    for m in _JS_METHOD.finditer(source):
        start, depth = m.end(), 1
        j = start
        while j < len(source) and depth:
            depth += {"{": 1, "}": -1}.get(source[j], 0)
            j += 1
        params = [p.strip().split("=")[0].strip() for p in m.group(2).split(",") if p.strip()]
        found[m.group(1)] = (source.count("\n", 0, m.start()) + 1, params, source[start:j - 1])
    return found


def _frontdoor_js_drivers() -> dict[str, str]:
    out = {}
    for path in sorted((ROOT / "images").glob("*/driver.mjs")):
        source = _js_source(path)
        if js_methods(source):
            out[path.parent.name] = source
    return out


#: Which parameters of each method hold a handed value (scope, label, signature, trust root).
_JS_HANDED = {"frontdoorOpen": (1,), "frontdoorWrite": (0, 2, 3), "frontdoorRead": (0,), "frontdoorMessage": (0, 2)}
#: A JavaScript comparison operator (=== !== == != < > <= >=, not => or an assignment).
_JS_COMPARE = re.compile(r"===|!==|==|!=|<=|>=|(?<![=<>!\-])[<>](?![=>])")
_JS_NULL_SIDE = re.compile(r"^\s*(?:null|undefined|void 0)\s*$")


def js_decisions_on_handed_values(source: str) -> list[str]:
    """Where a Node driver's front-door method compares a handed value (other than to null or undefined),
    or calls a verify method: the rule ``decisions_on_handed_values`` holds a Python driver to."""
    found = []
    for name, (line, params, body) in js_methods(source).items():
        handed = {"signer", "frontdoorSigner", "trustRoot"} | {params[i] for i in _JS_HANDED[name] if i < len(params)}
        for number, text in enumerate(body.split("\n")):
            for piece in re.split(r"&&|\|\||[;,?:(){}\[\]]", text):
                parts = _JS_COMPARE.split(piece)
                if len(parts) < 2:
                    continue
                names = set(re.findall(r"[A-Za-z_$][\w$]*", piece))
                if _JS_NULL_SIDE.match(parts[-1]) or _JS_NULL_SIDE.match(parts[0]):
                    continue
                hit = names & handed
                if hit:
                    found.append(f"{name} line {line + number}: compares {sorted(hit)}")
            for call in re.findall(r"\.\s*(\w*verify\w*)\s*\(", text, re.I):
                found.append(f"{name} line {line + number}: calls {call}")
    return found


def js_imports(source: str) -> list[str]:
    """The modules a Node driver imports (static ``import``/``export from``, dynamic ``import()``,
    ``require()``), read from the original text since their names are string literals."""
    return re.findall(r"""(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'`]([^"'`]+)["'`]""", source)


#: JavaScript signature libraries, and Node's own ways to verify a signature.
JS_CRYPTO = ("tweetnacl", "@noble/ed25519", "@noble/curves", "@noble/hashes", "elliptic", "node-forge", "jose",
             "jsrsasign", "libsodium-wrappers", "sodium-native", "ed25519", "@stablelib/ed25519")
_JS_VERIFY = re.compile(r"\b(?:createVerify|verify|createHmac|timingSafeEqual|subtle)\b")


DRIVERS = _frontdoor_drivers()
JS_DRIVERS = _frontdoor_js_drivers()


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def decisions_on_handed_values(tree: ast.Module) -> list[str]:
    """Where a front-door op compares a handed value (other than to None), or calls a verify method."""
    found = []
    for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name in OPS):
        for node in ast.walk(fn):
            if isinstance(node, ast.Compare) and not all(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
                hit = _names(node) & HANDED
                if hit:
                    found.append(f"{fn.name} line {node.lineno}: compares {sorted(hit)}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and "verify" in node.func.attr:
                found.append(f"{fn.name} line {node.lineno}: calls {node.func.attr}")
    return found


def test_the_pin_finds_a_driver_deciding_for_the_sut():
    bad = ast.parse("def frontdoor_read(self, scope, query, k, tag):\n"
                    "    return [r for r in self.rows if r['user'] == scope['user'] and r['label'] != 'x']\n"
                    "def frontdoor_write(self, scope, text, label, signature, tags):\n"
                    "    self.key.verify(signature, text.encode())\n")
    assert decisions_on_handed_values(bad) == ["frontdoor_read line 2: compares ['scope']",
                                               "frontdoor_write line 4: calls verify"]


@pytest.mark.parametrize("driver", sorted(DRIVERS) + [f"driverkit/{name}" for name in sorted(KIT_OPS)])
def test_no_driver_verifies_a_signature_or_filters_by_label_or_scope(driver):
    tree = KIT_OPS[driver.split("/", 1)[1]] if driver.startswith("driverkit/") else DRIVERS[driver]
    assert decisions_on_handed_values(tree) == []
    imported = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    imported += [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
    assert not [m for m in imported if m.split(".")[0] in CRYPTO], imported


def test_the_js_pin_finds_a_driver_deciding_for_the_sut():
    bad = _js_source_text(
        "class D {\n"
        "  async frontdoorRead(scope, query, k, tag) {\n"
        "    return this.rows.filter((r) => r.user === scope.user && r.label !== 'x');\n"
        "  }\n"
        "  async frontdoorWrite(scope, text, label, signature, tags) {\n"
        "    if (signature == null) return { accepted: true };  // null: allowed\n"
        "    this.key.verify(signature, text);\n"
        "    return { accepted: label >= 'u', note: '=== label' };\n"
        "  }\n"
        "}\n")
    assert js_decisions_on_handed_values(bad) == ["frontdoorRead line 3: compares ['scope']",
                                                  "frontdoorWrite line 7: calls verify",
                                                  "frontdoorWrite line 8: compares ['label']"]
    assert js_imports('import nacl from "tweetnacl";\nconst c = await import("node:crypto");') == ["tweetnacl", "node:crypto"]


def _js_source_text(text: str) -> str:
    path = Path(__import__("tempfile").mkdtemp()) / "driver.mjs"
    path.write_text(text)
    return _js_source(path)


@pytest.mark.parametrize("driver", sorted(JS_DRIVERS))
def test_no_node_driver_verifies_a_signature_or_filters_by_label_or_scope(driver):
    source = JS_DRIVERS[driver]
    assert js_decisions_on_handed_values(source) == []
    imported = js_imports((ROOT / "images" / driver / "driver.mjs").read_text())
    assert not [m for m in imported if m in JS_CRYPTO or m.split("/")[0] in JS_CRYPTO], imported
    code = "".join(body for _, _, body in js_methods(source).values())
    assert not _JS_VERIFY.findall(code), "a front-door method reaches for a way to verify a signature"


def test_every_front_door_row_has_a_driver_offering_the_ops_and_says_where_provenance_goes():
    rows = [p for p in load_profiles() if "frontdoor" in p.measurements]
    assert {p.row for p in rows} >= {"langgraph-store", "langgraph-store-sqlite"}
    for profile in rows:
        assert profile.frontdoor is not None and profile.frontdoor.isolation in ("sut", "separate-store", "driver")
        assert profile.driver_dir.name in DRIVERS or profile.driver_dir.name in JS_DRIVERS, \
            f"{profile.row}: its driver offers no front-door op"
    assert set(DRIVERS) | set(JS_DRIVERS) <= {p.driver_dir.name for p in rows}, "a driver offers the ops to no row"


def test_a_case_store_is_new_when_fresh_and_the_kept_one_after_a_restart(tmp_path):
    """kit.case_store: a fresh case's store must not exist yet, a reopened one must; the folder is made."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "images" / "driverkit"))
    from memlab_driver.frontdoor import case_store
    from memlab_driver.protocol import BadRequest

    path = case_store(tmp_path, "case-1", True, "store.db")
    assert path == tmp_path / "frontdoor" / "case-1" / "store.db" and path.parent.is_dir()
    with pytest.raises(BadRequest, match="does not exist"):
        case_store(tmp_path, "case-1", False, "store.db")  # nothing was stored: a restart finds nothing
    path.write_text("")
    assert case_store(tmp_path, "case-1", False, "store.db") == path
    with pytest.raises(BadRequest, match="exists"):
        case_store(tmp_path, "case-1", True, "store.db")
    assert case_store(tmp_path, "case-2", True).is_dir()


def test_a_case_schema_is_new_when_fresh_and_the_kept_one_after_a_restart():
    """kit.case_schema_name / check_case_schema: a case's PostgreSQL schema, refused as a case's folder is."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "images" / "driverkit"))
    from memlab_driver.frontdoor import case_schema_name, check_case_schema
    from memlab_driver.protocol import BadRequest

    assert case_schema_name("case-12") == "frontdoor_case-12"
    with pytest.raises(BadRequest, match="63 bytes"):
        case_schema_name("c" * 64)
    check_case_schema("case-1", "frontdoor_case-1", fresh=True, exists=False)
    check_case_schema("case-1", "frontdoor_case-1", fresh=False, exists=True)
    with pytest.raises(BadRequest, match="exists"):
        check_case_schema("case-1", "frontdoor_case-1", fresh=True, exists=True)
    with pytest.raises(BadRequest, match="does not exist"):
        check_case_schema("case-1", "frontdoor_case-1", fresh=False, exists=False)


NODE = shutil.which("node")
NODE_KIT = ROOT / "images" / "driverkit-node" / "memlab_driver.mjs"


def test_the_node_kit_answers_the_front_door_ops_as_the_python_kit(tmp_path):
    """The same requests as above through the Node kit: ids and bytes as sent, the SUT's error a refusal,
    the driver's own error and a malformed request or answer faults, case_store's refusals."""
    assert NODE, "this test runs the Node kit: install node (Debian's nodejs, as the machine the lab runs on has it)"
    (tmp_path / "sut.mjs").write_text('export function refuse() { throw new RangeError("the store refuses this source"); }\n')
    (tmp_path / "driver.mjs").write_text(f"""
import {{ serve, caseStore }} from {json.dumps(NODE_KIT.as_uri())};
import {{ refuse }} from "./sut.mjs";
const seen = [];
serve({{
  async open() {{}}, describe() {{ return {{ sut: "toy" }}; }},
  async frontdoorOpen(kase, trustRoot, fresh) {{ this.dir = caseStore({json.dumps(str(tmp_path))}, kase, fresh); }},
  async frontdoorWrite(scope, text, label, signature, tags) {{
    if (text.startsWith("refuse")) refuse();
    if (text.startsWith("crash")) return {{ accepted: true, stored: scope.nowhere.x }};
    if (text.startsWith("shape")) return {{ stored: 1 }};
    seen.push(text);
    return {{ accepted: true, stored: {{ scope, label, signature: signature && signature.toString("hex"), tags,
                                        signer: this.frontdoorSigner && this.frontdoorSigner.toString("hex") }} }};
  }},
  async frontdoorRead(scope, query, k, tag) {{ return seen.slice(0, k).map((text) => ({{ text, marker: null }})); }},
  async frontdoorMessage(scope, text, label, tags) {{ return Buffer.from(`${{label}}|${{text}}`); }},
}});
""")
    requests = [{"op": "open", "volumes": {}, "config": {}},
                {"op": "frontdoor_open", "case": "case-7", "trust_root": "01" * 32, "fresh": True},
                {"op": "frontdoor_open", "case": "case-7", "trust_root": "01" * 32, "fresh": True},
                {"op": "frontdoor_write", **WRITE, "signer": "cd" * 32},
                {"op": "frontdoor_write", **{**WRITE, "text": "refuse me"}},
                {"op": "frontdoor_write", **{**WRITE, "text": "crash"}},
                {"op": "frontdoor_write", **{**WRITE, "text": "shape"}},
                {"op": "frontdoor_read", "scope": SCOPE, "query": "q", "k": 3, "tag": None},
                {"op": "frontdoor_message", "scope": SCOPE, "text": "fact", "label": "user", "tags": []}]
    for op, fields, _said in MALFORMED:
        requests.append({"op": op, **fields})
    lines = "".join(json.dumps({"id": i, **r}) + "\n" for i, r in enumerate(requests))
    out = subprocess.run([NODE, str(tmp_path / "driver.mjs")], input=lines, capture_output=True, text=True, timeout=60)
    replies = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["id"] for r in replies] == list(range(len(requests))), out.stderr
    assert replies[1]["ok"] and (tmp_path / "frontdoor" / "case-7").is_dir()
    assert not replies[2]["ok"] and replies[2]["refused"] is False and "exists" in replies[2]["error"]["message"]
    assert replies[3]["result"] == {"accepted": True, "stored": {"scope": SCOPE, "label": "user", "signature": "ab" * 64,
                                                                "tags": ["verified"], "signer": "cd" * 32}}
    assert answer_problem("frontdoor_write", replies[3], 3) is None
    assert replies[4]["ok"] is False and replies[4]["refused"] is True and replies[4]["error"]["type"] == "RangeError"
    assert replies[5]["refused"] is False and "the driver failed, not the SUT: TypeError" in replies[5]["error"]["message"]
    assert replies[6]["refused"] is False
    assert replies[7]["records"] == [{"text": "t", "marker": None}] and answer_problem("frontdoor_read", replies[7], 7) is None
    assert replies[8]["result"] == {"message": b"user|fact".hex()}
    for reply, (op, _fields, said) in zip(replies[9:], MALFORMED):
        assert not reply["ok"] and reply["refused"] is False and said in reply["error"]["message"], reply
