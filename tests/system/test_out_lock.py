"""One writer per --out: a run locks its folder for the whole run; a second run on it, or a run
into a folder that already holds a set, is refused with a clear error and nothing written."""

import multiprocessing
import os
import signal

import pytest
from resultsets import make_result_set, memlab, shared_cache

from lab.resultset.lock import LOCK_FILE, OutRefused, claim
from lab.resultset.pins import file_digest
from lab.resultset.results import ResultSet
from lab.resultset.verify import verify


@pytest.fixture(scope="module")
def done(tmp_path_factory):
    return make_result_set(tmp_path_factory, "reference-naive", extra=("--no-reports",), name="locked")


def said(proc):
    """What the command printed on stderr, with rich's line wrapping undone."""
    return " ".join(proc.stderr.split())


def snapshot(root):
    return {p.relative_to(root).as_posix(): file_digest(p) for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_second_writer_in_this_process_is_refused(tmp_path):
    first = ResultSet(tmp_path / "out")
    with pytest.raises(OutRefused, match="being written by another memlab run"):
        ResultSet(tmp_path / "out")
    first.close()
    ResultSet(tmp_path / "out").close()  # released: an empty folder can be claimed again


def test_memlab_run_is_refused_while_another_run_holds_the_folder(tmp_path, tmp_path_factory):
    out = tmp_path / "out"
    held = claim(out)  # what a running `memlab run` holds
    try:
        proc = memlab("run", "--runtime", "local", "--sut", "reference-naive", "--out", out,
                      cache=shared_cache(tmp_path_factory))
    finally:
        held.close()
    assert proc.returncode == 2, proc.stderr
    assert "being written by another memlab run" in said(proc) and f"pid {os.getpid()}" in said(proc)
    assert sorted(p.name for p in out.iterdir()) == [LOCK_FILE]  # nothing written, no harness-error.txt


@pytest.mark.parametrize("command", [["run", "--runtime", "local", "--sut", "reference-naive"],
                                     ["lifecycle", "run", "--sut", "lifecycle-strict", "--runtime", "local"]])
def test_an_existing_set_given_as_out_is_refused_and_left_as_it_was(done, tmp_path_factory, command):
    before = snapshot(done)
    proc = memlab(*command, "--out", done, cache=shared_cache(tmp_path_factory))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "already holds a result set" in said(proc) and "memlab run --resume" in said(proc)
    assert snapshot(done) == before and verify(done).ok


def test_the_remains_of_a_killed_run_are_refused(tmp_path):
    out = tmp_path / "out"
    (out / "observations" / "r").mkdir(parents=True)
    (out / "run.json").write_text('{"status": "running"}\n')
    with pytest.raises(OutRefused, match="did not finish"):
        claim(out)


def _hold_forever(path, ready):
    held = claim(path)  # noqa: F841 -- kept open: the lock lives as long as the file
    ready.set()
    signal.pause()


def test_a_writer_killed_with_sigkill_releases_the_folder(tmp_path):
    out = tmp_path / "out"
    ctx = multiprocessing.get_context("fork")
    ready = ctx.Event()
    child = ctx.Process(target=_hold_forever, args=(out, ready))
    child.start()
    try:
        assert ready.wait(20)
        with pytest.raises(OutRefused, match=f"pid {child.pid} holds"):
            claim(out)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.join(10)
    claim(out).close()  # the kernel released the lock with the process
