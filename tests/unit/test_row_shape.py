"""A row of another shape (a field of the wrong JSON type, re-pinned or not) is refused where it is
loaded, naming the field: show, report in every format, compare and site exit 2 (each crashed on one
of these with a traceback), and verify calls it row-malformed."""

import json

import pytest
from click.testing import CliRunner
from resultsets import cache, copy_set, make_result_set  # noqa: F401 (cache: a fixture)

from lab.cli import main
from lab.resultset.verify import verify

SHAPES = {
    "controls.C1.ok": lambda r: r["controls"]["C1"].pop("ok"),
    "cells.T1.verdict": lambda r: r["cells"]["T1"].update(verdict=["ACCEPTED"]),
    "cells.T2.evidence": lambda r: r["cells"]["T2"].update(evidence=["x"]),
    "cells.T8.variants[0]": lambda r: r["cells"]["T8"].update(variants=[1]),
    "cells.T1.evidence.c3.files.changed": lambda r: r["cells"]["T1"]["evidence"]["c3"].update(files={"changed": 3}),
    "groups.T1-T5": lambda r: r.update(groups={"T1-T5": "x"}),
    "sut": lambda r: r.update(sut="x"),
    "configuration": lambda r: r.update(configuration=[1]),
    "runtime.packages": lambda r: r["runtime"].update(packages="x"),
    "volumes.store": lambda r: r.update(volumes={"store": 5}),
    "metric": lambda r: r.update(metric="0.9"),
}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    return make_result_set(tmp_path_factory, "reference-naive", name="shape")


@pytest.mark.parametrize("field", SHAPES)
def test_a_row_of_another_shape_is_refused_naming_the_field(pristine, tmp_path, field):
    root = copy_set(pristine, tmp_path / "rs")
    path = next((root / "rows").glob("*.json"))
    row = json.loads(path.read_text())
    SHAPES[field](row)
    path.write_text(json.dumps(row))
    for args in (["show", root], ["report", root, "--format", "markdown"], ["report", root, "--format", "junit"],
                 ["report", root, "--format", "html"], ["compare", pristine, root],
                 ["site", root, "--out", tmp_path / "site", "--no-verify", "--sweeps", tmp_path / "none"]):
        result = CliRunner().invoke(main, [str(a) for a in args])
        assert isinstance(result.exception, SystemExit) and result.exit_code == 2, (args, repr(result.exception))
        assert f"field '{field}'" in result.output, result.output
    found = [f for f in verify(root).findings if f.ground == "row-malformed"]
    assert found and field.split(".")[0] in found[0].detail, verify(root).findings
