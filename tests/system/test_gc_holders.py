"""gc and the folders live processes work in: a dead run's scratch is removed only after its holders
are ended; a stray folder's holders are never ended, and the folder is left, named."""

import subprocess

from lab.runtime.housekeeping import LEFT, RunRegistry, gc, new_run_id, scratch_base


def _dead_owner(registry: RunRegistry) -> None:
    (registry.dir / "owner").write_text("999999999 1")  # no such process: the run's memlab is gone


def test_a_dead_runs_server_is_ended_before_its_data_directory_goes(cache):
    registry = RunRegistry(new_run_id())
    data = registry.scratch_root / "row" / "trials" / "T1" / "pgdata"
    data.mkdir(parents=True)
    server = subprocess.Popen(["sleep", "300"], cwd=data)  # works in the data directory, carries no mark
    try:
        _dead_owner(registry)
        done = gc()
        assert server.wait(timeout=15) is not None  # ended by gc, before the folder went
        assert f"scratch {registry.scratch_root}" in done and not registry.scratch_root.exists()
    finally:
        server.kill()
        server.wait()


def test_a_stray_folder_a_live_process_works_in_is_left_and_the_process_spared(cache):
    stray = scratch_base() / "not-a-run"
    stray.mkdir()
    other = subprocess.Popen(["sleep", "300"], cwd=stray)
    try:
        done = gc()
        assert other.poll() is None, "gc ended a process it cannot prove belongs to a run"
        assert stray.is_dir()
        left = [line for line in done if line.startswith(LEFT)]
        assert len(left) == 1 and str(stray) in left[0] and str(other.pid) in left[0], done
    finally:
        other.kill()
        other.wait()
    assert f"scratch {stray}" in gc() and not stray.exists()  # once nobody works in it, it goes


def test_gc_reports_only_what_it_removed(cache, monkeypatch):
    """As another user, gc may neither end a run's process nor remove its folders: it says so (left),
    never "removed"."""
    import os
    import shutil

    from lab.runtime import housekeeping

    registry = RunRegistry(new_run_id())
    (registry.dir / "pids" / "4242").touch()
    _dead_owner(registry)

    def refused(*args, **kwargs):
        raise PermissionError("not yours")

    monkeypatch.setattr(housekeeping, "_alive", lambda pid: True)
    monkeypatch.setattr(housekeeping, "_belongs", lambda pid, run_id: True)
    monkeypatch.setattr(os, "killpg", refused)
    monkeypatch.setattr(os, "kill", refused)
    monkeypatch.setattr(housekeeping.reaper, "marked", lambda run_id: [])
    monkeypatch.setattr(housekeeping.reaper, "holders", lambda path: [])
    monkeypatch.setattr(shutil, "rmtree", lambda *args, **kwargs: None)  # nothing of it may be removed
    done = gc()
    assert not [line for line in done if not line.startswith(LEFT)], done  # nothing claimed as removed
    assert any(str(registry.scratch_root) in line for line in done) and any(registry.run_id in line for line in done)
