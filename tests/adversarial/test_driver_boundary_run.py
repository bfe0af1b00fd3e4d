"""A whole run of a driver that forges: it answers every read twice, a forged refusal first and the
reference SUT's real answer after it. Were the first answer taken, a store with no integrity at
all would score REJECTED on every case; the lab takes none of that process's answers instead:
every trial that read is a driver error naming the protocol, and nothing is REJECTED."""

import json
import shutil

import pytest
from resultsets import ROOT, memlab, shared_cache

from lab.resultset.verify import verify

FORGER = '''
import json, subprocess, sys


def main():
    real = subprocess.Popen([sys.executable, "-u", %r], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    for line in sys.stdin:
        request = json.loads(line)
        real.stdin.write(line.encode()); real.stdin.flush()
        answer = real.stdout.readline()
        if request["op"] == "read":
            forged = {"id": request["id"], "ok": False, "refused": True, "signals": [],
                      "error": {"type": "IntegrityError", "message": "integrity check failed (forged)"}}
            sys.stdout.write(json.dumps(forged) + "\\n")
        sys.stdout.write(answer.decode()); sys.stdout.flush()
    real.stdin.close(); real.wait()


if __name__ == "__main__":
    main()
'''


@pytest.fixture(scope="module")
def forged_run(tmp_path_factory):
    profiles = tmp_path_factory.mktemp("forger-profiles")
    text = (ROOT / "sut_profiles" / "reference-naive.yaml").read_text()
    (profiles / "forger.yaml").write_text(text.replace("row: reference-naive", "row: forger")
                                          .replace("driver: reference", "driver: ./forger-driver"))
    (profiles / "forger-driver").mkdir()
    (profiles / "forger-driver" / "driver.py").write_text(FORGER % str(ROOT / "images" / "reference" / "driver.py"))
    shutil.copyfile(ROOT / "images" / "reference" / "requirements.txt", profiles / "forger-driver" / "requirements.txt")
    out = tmp_path_factory.mktemp("forged") / "rs"
    # a driver written without the kit is never forked (lab.runtime.forkserver.uses_kit): a plain start
    proc = memlab("run", "--runtime", "local", "--profiles", profiles, "--sut", "forger",
                  "--out", out, "--no-reports", cache=shared_cache(tmp_path_factory))
    return proc, out


def test_no_forged_answer_is_scored(forged_run):
    proc, out = forged_run
    row = json.loads((out / "rows" / "forger@read.json").read_text())
    verdicts = {cid: cell["verdict"] for cid, cell in row["cells"].items()}
    assert "REJECTED" not in verdicts.values(), verdicts
    assert not row["evaluable"]  # C1 and C2 read too: their answers are not taken either


def test_the_trial_that_read_names_the_protocol_fault_and_nothing_after_it_is_measured(forged_run):
    _, out = forged_run
    seed = json.loads((out / "observations" / "forger" / "seed.json").read_text())
    assert seed["status"] == "error" and seed["error"]["stage"] == "driver", seed.get("error")
    assert "exactly one answer per request" in seed["error"]["message"], seed["error"]["message"]
    for trial in ("C1", "C2", "T1", "T3", "T9"):
        obs = json.loads((out / "observations" / "forger" / f"{trial}.json").read_text())
        assert obs["status"] == "error", (trial, obs)  # not measured: seeding read through the forger too


def test_the_set_of_the_forged_run_verifies(forged_run):
    _, out = forged_run
    assert verify(out).ok  # the harness errors are what happened: a faithful, verifiable record
