"""``memlab lifecycle run`` on a reference row imports what that run uses and nothing more (issue 29:
the lifecycle command starts fast): not the HTTP shim's config reader and client (only when a shim
is gated), not the signing code and cryptography (only with --sign-key), not Docker's runtime, not
the at-rest cases and the reports that read them; and the profile's full validator where the row's
profile was not checked before under the same key (its text, path and the lab's code:
lab.cli.profile_cache), none where it was.

Measured in a new process as ``memlab`` runs it (no timing: what is in ``sys.modules`` when it exits).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lab.lifecycle.scenario import BUNDLED_PACK

ROOT = Path(__file__).resolve().parents[2]
#: Modules a lifecycle run on a reference row has no use for.
UNUSED = ("lab.lifecycle.adapters.http_config", "lab.lifecycle.adapters.http", "lab.lifecycle.adapters.http_transport",
          "lab.lifecycle.adapters.http_contract", "lab.lifecycle.doctor", "httpx", "lab.resultset.signing",
          "cryptography", "lab.runtime.docker", "lab.runtime.dockercli", "lab.runtime.images",
          "lab.cases", "lab.report.html", "lab.report.terminal")  # the at-rest cases and their reports
#: Modules it must load: the gate itself.
USED = ("lab.lifecycle.gate_run", "lab.cli.progress")
#: The profile's validator (its schema): loaded where the row's profile is checked, not where it was checked
#: before under the same key.
VALIDATOR = ("lab.profile.validate", "lab.profile.schema")
LOADED = """
import json, sys
from lab.cli import main
try:
    main(sys.argv[1:], prog_name="memlab")
except SystemExit as done:
    code = done.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def run_loaded(*args: object) -> tuple[int, set[str]]:
    """(exit code, every module imported) of a new ``memlab ARGS`` process."""
    done = subprocess.run([sys.executable, "-c", LOADED, *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.stdout.strip(), done.stderr
    answer = json.loads(done.stdout.splitlines()[-1])
    return answer["code"], set(answer["modules"])


def test_a_reference_run_imports_no_shim_no_signing_no_docker(tmp_path):
    out = tmp_path / "set"
    code, modules = run_loaded("lifecycle", "run", BUNDLED_PACK / "deletion-basic.yaml", "--adapter",
                               "reference:naive", "--runtime", "local", "--out", out, "--report-json",
                               tmp_path / "report.json")
    assert code in (0, 1), code  # the gate's verdict, not an error
    assert (out / "manifest.json").is_file() and json.loads((tmp_path / "report.json").read_text())["gate"]
    assert sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in UNUSED)) == []
    assert set(USED) <= modules


def test_a_row_checked_before_under_the_same_key_is_not_checked_again(tmp_path):
    from lab.cli import profile_cache

    def run(name: str) -> set[str]:
        code, modules = run_loaded("lifecycle", "run", BUNDLED_PACK / "deletion-basic.yaml", "--adapter",
                                   "reference:naive", "--runtime", "local", "--out", tmp_path / name)
        assert code in (0, 1), code
        return modules

    first = run("first")
    assert set(VALIDATOR) <= first or list(profile_cache.folder().glob("*.pickle"))  # checked, or before
    assert not set(VALIDATOR) & run("second") and list(profile_cache.folder().glob("*.pickle"))
