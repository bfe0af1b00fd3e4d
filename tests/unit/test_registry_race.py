"""Ctrl-C's and a run end's clean-up of a run's records is not ended by a record that its own start
removed between the listing and the read (a fork-served process that ended meanwhile)."""

from pathlib import Path

from lab.runtime import housekeeping


def test_a_server_record_gone_since_the_listing_is_passed_over_and_the_rest_cleaned(cache, monkeypatch):
    state = cache / "runs" / "race"
    (state / "servers").mkdir(parents=True)
    gone, kept_folder = state / "servers" / "999999", cache / "own"
    kept_folder.mkdir()
    (state / "servers" / "999998").write_text(f"not-this-identity\n{kept_folder}")
    listed = sorted((state / "servers").glob("*")) + [gone]  # listed, then removed by its start before the read
    real_glob = Path.glob
    monkeypatch.setattr(Path, "glob", lambda self, pattern: iter(listed) if self == state / "servers"
                        else real_glob(self, pattern))
    assert housekeeping._kill_tracked(state, "race") == []
    assert not kept_folder.exists() and not (state / "servers" / "999998").exists()
