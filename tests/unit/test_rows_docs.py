"""The generated row pages (docs/rows.md, rows-lifecycle.md, rows-integrity.md) are what their scripts write
from the published sets and the profiles today: a set re-published or a profile's prose changed without
the page written again fails here, naming the script to run."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("script", ["framework_rows_doc.py", "lifecycle_rows_doc.py", "integrity_rows_doc.py"])
def test_the_page_is_what_its_script_writes(script):
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / script), "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
