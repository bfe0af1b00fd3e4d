"""The test bed's two ways of giving a trial the seeded store: a copy of its own (trials side by side),
or the seeded volumes put back where they were seeded (``trials_in_place``, for a SUT that records its
store's resolved path); and the check that no trial changed what every trial starts from."""

from pathlib import Path

from lab.method.bed import Bed


def _seeded(bed: Bed) -> dict[str, Path]:
    vols = bed.seeded()
    (vols["store"] / "mem.db").write_text("seeded")
    bed.seeding_done()
    return vols


def test_a_copy_of_its_own_and_a_trial_that_writes_outside_it_is_named(tmp_path):
    bed = Bed(tmp_path / "row", {"store": True})
    seeded = _seeded(bed)
    one = bed.fresh({"timings": {}}, "T1")
    assert one["store"] != seeded["store"] and (one["store"] / "mem.db").read_text() == "seeded"
    (one["store"] / "mem.db").write_text("edited")  # inside its copy: fine
    assert bed.changed() == []
    (seeded["store"] / "mem.db.vectors.db").write_text("an index the SUT reached by its recorded path")
    assert bed.changed() == ["store/mem.db.vectors.db"]


def test_in_place_every_trial_runs_where_the_store_was_seeded_from_the_seeded_state(tmp_path):
    bed = Bed(tmp_path / "row", {"store": True}, in_place=True)
    seeded = _seeded(bed)
    one = bed.fresh({"timings": {}}, "T1")
    assert one == seeded  # the path the SUT recorded while seeding
    (one["store"] / "mem.db").write_text("edited")
    (one["store"] / "extra").write_text("left by the trial")
    two = bed.fresh({"timings": {}}, "T2")
    assert two == seeded and (two["store"] / "mem.db").read_text() == "seeded"
    assert not (two["store"] / "extra").exists()
    assert bed.changed() == []  # the kept seeded state is untouched
