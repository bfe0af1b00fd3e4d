"""A spec's op does not depend on what was imported first: ``EditSpec("T3", ...)`` asks for a delete in a
fresh interpreter that never imported the lab's cases, and the cases agree with the fixed table."""

import subprocess
import sys

from edits.model import EditSpec
from lab.cases.registry import CASES


def test_a_spec_knows_its_op_before_any_case_is_imported():
    code = ("import sys; from edits.model import EditSpec; "
            "s = EditSpec(case='T3', context='A', target='x'); assert 'lab.cases' not in sys.modules; print(s.op)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "delete", done.stderr


def test_every_case_asks_for_the_op_the_table_fixes():
    assert {c.id: c.op for c in CASES if c.op} == dict(EditSpec.implied)
