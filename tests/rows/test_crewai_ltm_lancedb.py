"""Re-measure the published row crewai-ltm-lancedb; fail when a cell, C1/C2 or the installed version
differs. Also re-run the probe behind the three findings in the row's notes (images/crewai/probe_scopes.py)
in the row's own environment, so the notes fail loudly when CrewAI changes them."""

import json
import os
import re
import subprocess

import pytest

from integrity_rows import check_row
from lab.profile import load_profiles, select
from lab.runtime.local import KIT_DIR, LocalRuntime

pytestmark = pytest.mark.rows


def test_row_matches_its_published_result_set(tmp_path):
    check_row("crewai-ltm-lancedb", tmp_path)


def test_the_findings_in_the_rows_notes_hold(tmp_path):
    profile = select(load_profiles(), ["crewai-ltm-lancedb"])[0]
    python = LocalRuntime().prepare(profile).detail["interpreter"]
    (tmp_path / "store").mkdir()
    env = {**os.environ, "HOME": str(tmp_path), "TMPDIR": str(tmp_path), "PYTHONPATH": str(KIT_DIR)}
    proc = subprocess.run([python, str(profile.driver_dir / "probe_scopes.py"), str(tmp_path / "store"),
                           str(tmp_path / "probe.json")], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads((tmp_path / "probe.json").read_text())
    claimed = {m[1]: m[2] == "true" for m in re.finditer(r"probe: (\w+)=(true|false)", profile.notes)}
    assert claimed and set(claimed) == set(found), f"the notes claim {claimed}, the probe reports {sorted(found)}"
    assert found == claimed, f"the probe found {found}; the row's notes say {claimed}"
