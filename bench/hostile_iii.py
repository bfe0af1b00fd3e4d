"""Hostile classes of the boundary's third campaign that a real command can be tried on: a forged summary
beside a signed set, a signal while the site is written, a delete a shim acknowledges and never applies,
a shim answering more than one observation holds, and more than one run may write. Each has its unit test as well (tests/unit/test_verify.py,
tests/system/test_site_interrupted.py, tests/lifecycle/test_lifecycle_gate.py, tests/lifecycle/test_runner.py);
here each is played as a user meets it, a new process each."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from hostile_base import ROOT, Bed, Hostile, clean, memlab, refused, said

sys.path.insert(0, str(ROOT / "tests" / "lifecycle"))

PUBLISHED = ROOT / "results" / "published"


def _forged_beside_signed(bed: Bed) -> tuple[bool, str]:
    """Signed, then junit.xml and summary.json forged and a file added: VERIFIED, naming each as not pinned."""
    root = bed.copy()
    signed = memlab(bed, "sign", root, "--key", bed.key)
    if signed.returncode != 0:
        return False, f"could not sign the bed: {said(signed)}"
    (root / "junit.xml").write_text('<testsuites name="memlab"><testsuite name="forged" tests="0"/></testsuites>')
    (root / "summary.json").write_text('{"status": "PASS", "exit_code": 0}')
    (root / "added.txt").write_text("added after signing")
    done = memlab(bed, "verify", root, "--pubkey", bed.key.with_name(bed.key.stem + ".pub.pem"))
    return refused(done, 0, "VERIFIED", "not pinned", "junit.xml", "summary.json", "added.txt")


def _signal_mid_site(signum: signal.Signals, code: int):
    def attempt(bed: Bed) -> tuple[bool, str]:
        out = bed.work / "site"
        sets = sorted(str(p) for p in PUBLISHED.iterdir() if p.is_dir())
        proc = subprocess.Popen([sys.executable, "-m", "lab.cli", "site", *sets, "--out", str(out), *bed.no_sweeps()],
                                cwd=ROOT, env=bed.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(3)  # verifying every published set takes far longer
        proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=120)
        done = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
        if (out / "index.html").exists():
            return False, f"{said(done)}: an index was left, naming pages that may not be there"
        return refused(done, code, "interrupted")
    return attempt


def _gate(bed: Bed, store, pack_steps: str, *extra: str) -> subprocess.CompletedProcess:
    """``memlab lifecycle run`` of a one-scenario pack on a shim serving ``store`` (convergence 0.2 s)."""
    import shims

    pack = bed.work / "pack"
    pack.mkdir(exist_ok=True)
    (pack / "probe.yaml").write_text("id: probe\ntitle: the class's probe\nsubject: {tenant_id: acme, user_id: alice}\n"
                                     "steps:\n" + pack_steps)
    config = bed.work / "shim.yaml"
    with shims.serve(store) as server:
        text = shims.EXAMPLE_CONFIG.read_text().replace("http://127.0.0.1:8765", server.url)
        config.write_text(text.replace("  query: 5\n", "  query: 5\n  convergence: 0.2\n"))
        return memlab(bed, "lifecycle", "run", pack, "--http", config, "--out", bed.work / "set",
                      "--json", bed.work / "summary.json", *extra, timeout=300)


def _unapplied_delete(bed: Bed) -> tuple[bool, str]:
    """A delete acknowledged and never applied: deletion residue (P1, exit 1), not a harness error."""
    from shims.noop_delete import Store

    done = _gate(bed, Store(), "  - write: {key: allergy, value: \"cashew allergy code AL-93\"}\n"
                               "  - delete: {key: allergy}\n  - query: {prompt: What should the caterer know?}\n")
    ok, what = refused(done, 1)
    if not ok:
        return False, what
    residue = json.loads((bed.work / "summary.json").read_text())["checks"]["deletion_residue"]
    return residue["status"] == "FAIL" and residue["violations"] > 0, f"{what}; deletion_residue {residue['status']}"


def _answers_past_the_budget(bed: Bed) -> tuple[bool, str]:
    """Twenty answers of 3.5 MiB each to one scenario (each under the transport's 4 MiB cap): a harness
    error naming the budget (exit 2), and a set memlab's own reader and verify take."""
    import shims

    class Verbose(shims.example.Store):
        def query(self, scope, prompt):  # what it holds, and 3.5 MiB more
            return [*super().query(scope, prompt), {"text": "x" * (3_500 * 1024), "key": "verbose"}]

    queries = "".join(f"  - query: {{prompt: question {i}}}\n" for i in range(20))
    done = _gate(bed, Verbose(), "  - write: {key: k, value: \"v one\"}\n" + queries)
    ok, what = refused(done, 2)
    row = next((bed.work / "set" / "rows").glob("*.json"), None)
    errors = json.loads(row.read_text()).get("errors", []) if row else []
    named = any("MiB one observation holds" in e.get("message", "") for e in errors)
    verified = memlab(bed, "verify", bed.work / "set")
    return ok and named and verified.returncode == 0 and not clean(verified), \
        f"{what}; budget named: {named}; verify: {said(verified)}"


def _run_past_the_budget(bed: Bed) -> tuple[bool, str]:
    """Half a MiB an answer on every run of a pack, each observation well under its own bound, past the
    run's ``--evidence-budget 2M``: a harness error naming the budget (exit 2), the observations saved
    before it kept, and a set memlab's own verify reads (PARTIAL: ``--resume`` completes it)."""
    import shims

    class Verbose(shims.example.Store):
        def query(self, scope, prompt):  # what it holds, and half a MiB more
            return [*super().query(scope, prompt), {"text": "x" * (512 * 1024), "key": "verbose"}]

    queries = "".join(f"  - query: {{prompt: question {i}}}\n" for i in range(2))
    done = _gate(bed, Verbose(), "  - write: {key: k, value: \"v one\"}\n" + queries, "--seeds", "8",
                 "--evidence-budget", "2M")
    ok, what = refused(done, 2, "evidence budget", "--evidence-budget <bigger>")
    saved = list((bed.work / "set" / "observations").rglob("*.json"))
    run = json.loads((bed.work / "set" / "run.json").read_text())
    verified = memlab(bed, "verify", bed.work / "set")
    return (ok and 0 < len(saved) < 8 and (run.get("stopped") or {}).get("by") == "evidence-budget"
            and not clean(verified) and verified.returncode in (0, 3)), \
        f"{what}; {len(saved)} of 8 observations kept; verify: {said(verified)}"


BOUNDARY = (
    Hostile("a signed set with junit.xml and summary.json forged after signing, a file added", "reader",
            _forged_beside_signed),
    Hostile("SIGINT while memlab site writes", "signal", _signal_mid_site(signal.SIGINT, 130)),
    Hostile("SIGTERM while memlab site writes", "signal", _signal_mid_site(signal.SIGTERM, 143)),
    Hostile("a shim's delete acknowledged and never applied", "shim", _unapplied_delete),
    Hostile("a shim answering 70 MiB to one scenario, 3.5 MiB an answer", "shim", _answers_past_the_budget),
    Hostile("a shim answering 0.5 MiB a query on every run, past the run's evidence budget", "shim",
            _run_past_the_budget),
)
