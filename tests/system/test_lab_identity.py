"""The lab's identity in every set it writes does not depend on git: ``lab.code`` digests the lab's code
and profiles, so a lab installed from an archive (or run where git is not on PATH) still says which code
measured a set, and ``merge`` and ``--resume`` refuse to splice two labs' measurements."""

from __future__ import annotations

import json
import subprocess

import pytest

from lab.resultset import files
from lab.resultset.files import CODE_DIRS, code_digest, lab_revision


def a_lab(root):
    for top in CODE_DIRS:
        (root / top / "sub").mkdir(parents=True)
        (root / top / "sub" / "module.py").write_text(f"# {top}\n")
    return root


def digest_of(root):
    return code_digest.__wrapped__(root)  # uncached: the tree changes between calls


def test_the_digest_follows_every_byte_of_the_code_and_nothing_else(tmp_path):
    root = a_lab(tmp_path / "lab-tree")
    first = digest_of(root)
    assert first.startswith("sha256:") and digest_of(root) == first
    (root / "lab" / "sub" / "__pycache__").mkdir()
    (root / "lab" / "sub" / "__pycache__" / "module.cpython-311.pyc").write_bytes(b"\0cache")
    (root / "edits" / "stray.pyc").write_bytes(b"\0")
    (root / "lab" / "memlab.egg-info").mkdir()
    (root / "lab" / "memlab.egg-info" / "PKG-INFO").write_text("Name: memlab")
    (root / "docs").mkdir()
    (root / "docs" / "notes.md").write_text("not code")
    assert digest_of(root) == first  # caches, build metadata and other folders are not the lab's code
    (root / "sut_profiles" / "sub" / "module.py").write_text("# sut_profiles \n")
    changed = digest_of(root)
    assert changed != first
    (root / "images" / "new.py").write_text("")
    assert digest_of(root) not in (first, changed)


def test_a_link_is_digested_by_its_target_never_followed(tmp_path):
    root = a_lab(tmp_path / "lab-tree")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "big.bin").write_bytes(b"x" * 100)
    (root / "images" / "elsewhere").symlink_to(outside, target_is_directory=True)
    linked = digest_of(root)
    (outside / "big.bin").write_bytes(b"y" * 100)  # what the link points at is not the lab's code
    assert digest_of(root) == linked


def test_without_git_the_revision_still_names_the_code(monkeypatch):
    def no_git(*args, **kwargs):
        raise FileNotFoundError("git")

    monkeypatch.setattr(files.subprocess, "run", no_git)
    monkeypatch.setattr(files.subprocess, "Popen", no_git)
    revision = lab_revision()
    assert revision["commit"] is None and revision["dirty"] is None
    assert revision["code"] == code_digest() and revision["code"].startswith("sha256:")


def test_a_lifecycle_resume_under_other_code_is_refused(tmp_path, monkeypatch):
    """Same commit and tree flag, other code (a lab without git differs only there): refused, saying why."""
    from lab.lifecycle import resume

    then = {"version": "0.1.0", "code": "sha256:" + "1" * 64, "commit": None, "dirty": None}
    (tmp_path / "run.json").write_text(json.dumps({"kind": "lifecycle", "lab": then, "rows": []}))
    monkeypatch.setattr(resume, "lifecycle_partial", lambda root: object())
    monkeypatch.setattr(resume, "lab_revision", lambda: {**then, "code": "sha256:" + "2" * 64})
    with pytest.raises(resume.ResumeRefused, match="the lab changed since the run"):
        resume.resume_targets(tmp_path)


def test_the_frontdoor_run_record_keeps_code_and_an_older_one_round_trips_without_it():
    from lab.frontdoor.saved import LabRevision

    old = {"version": "0.1.0", "commit": "a" * 40, "dirty": False}
    assert LabRevision.from_json(old).to_json() == old  # sets written before code: byte for byte
    new = {**old, "code": "sha256:" + "3" * 64}
    assert LabRevision.from_json(new).to_json() == new


def test_git_is_still_asked_where_it_is(monkeypatch):
    """Its status is (in a process of its own, begun before the caller's other work: begin_lab_revision)."""
    asked = []
    real = subprocess.Popen

    def spy(args, **kwargs):
        asked.append(args[:4])
        return real(args, **kwargs)

    monkeypatch.setattr(files.subprocess, "Popen", spy)
    revision = lab_revision()
    assert ["git", "-C", str(files.PROJECT_ROOT), "status"] in asked and isinstance(revision["commit"], str)


def test_the_commit_is_read_from_the_git_folder_as_git_reads_it(tmp_path):
    """HEAD naming a loose ref, a packed one, a commit (detached), and a worktree's .git file: the
    commit git names, read without a git process; another form of HEAD is left to git (None)."""
    from lab import PROJECT_ROOT
    from lab.resultset import git_state

    here = subprocess.run(["git", "-C", str(PROJECT_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    if here.returncode == 0:
        assert git_state.head_commit(*git_state.git_dirs(PROJECT_ROOT)) == here.stdout.strip()
    common = tmp_path / "repo" / ".git"
    (common / "refs" / "heads").mkdir(parents=True)
    (common / "HEAD").write_text("ref: refs/heads/main\n")
    (common / "refs" / "heads" / "main").write_text("a" * 40 + "\n")
    assert git_state.head_commit(*git_state.git_dirs(tmp_path / "repo")) == "a" * 40
    (common / "refs" / "heads" / "main").unlink()
    (common / "packed-refs").write_text(f"# pack-refs with: peeled\n{'b' * 40} refs/heads/main\n")
    assert git_state.head_commit(*git_state.git_dirs(tmp_path / "repo")) == "b" * 40
    worktree = common / "worktrees" / "wt"
    worktree.mkdir(parents=True)
    (worktree / "commondir").write_text("../..\n")
    (worktree / "HEAD").write_text("c" * 40 + "\n")
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text(f"gitdir: {worktree}\n")
    assert git_state.git_dirs(tmp_path / "wt") == (worktree, common.resolve())
    assert git_state.head_commit(*git_state.git_dirs(tmp_path / "wt")) == "c" * 40
    (worktree / "HEAD").write_text("ref: HEAD-of-another-form\n")
    assert git_state.head_commit(worktree, common) is None
    assert git_state.git_dirs(tmp_path / "nowhere") is None
