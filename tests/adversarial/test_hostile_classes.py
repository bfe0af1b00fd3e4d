"""The hostile classes of bench/hostile.py (run by bench/tamper.py after its tamper table) each hold: a
link planted where memlab writes, text a terminal would obey, a row of another shape, a store linked out
of its volume, a full or read-only disk, a folder one may not read, SIGTERM mid-run, a YAML alias bomb
in a shim config or a scenario (issue 28); a summary forged beside a signed set, a signal while the site
is written, a delete a shim acknowledges and never applies, a shim answering more than one observation
holds (bench/hostile_iii.py)."""

import sys

import pytest
from resultsets import ROOT, make_result_set, shared_cache

from lab.resultset import signing

sys.path.insert(0, str(ROOT / "bench"))
import hostile  # noqa: E402


@pytest.fixture(scope="module")
def bed(tmp_path_factory):
    pristine = make_result_set(tmp_path_factory, "reference-naive", extra=("--no-reports",), name="hostile")
    keys = tmp_path_factory.mktemp("hostile-keys")
    signing.keygen(keys / "publisher.pem")
    return hostile.Bed(pristine, keys / "publisher.pem", tmp_path_factory.mktemp("hostile-work") / "w",
                       shared_cache(tmp_path_factory))


def test_the_table_covers_every_kind_and_names_each_class_once():
    assert {h.kind for h in hostile.CLASSES} == {"writer", "reader", "sut", "shim", "profile", "store", "machine", "signal"}
    assert len({h.name for h in hostile.CLASSES}) == len(hostile.CLASSES) >= 30


@pytest.mark.parametrize("case", hostile.CLASSES, ids=[h.name for h in hostile.CLASSES])
def test_each_hostile_class_holds(bed, case):
    held, said = hostile.tried(case, bed)
    assert held, f"{case.name}: {said}"
