"""The scratch base runs keep SUT stores under: made private (0711: others may pass through to a volume,
never list or write), and refused when another user could reach into it -- a link, another owner, or a
folder group or others may write in -- with the fix, exit 2, never a traceback."""

from __future__ import annotations

import os
import stat

import pytest
from click.testing import CliRunner

from lab.cli import main
from lab.runtime import scratch
from lab.runtime.scratch import ScratchRefused, scratch_base


def test_a_base_memlab_makes_is_its_own_and_private(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLAB_SCRATCH", str(tmp_path / "made" / "here"))
    base = scratch_base()
    info = os.lstat(base)
    assert info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) == 0o711
    assert scratch_base() == base  # and taken again as it is


def test_a_private_base_of_the_users_own_is_made_passable_for_a_service_running_as_its_own_user(tmp_path,
                                                                                                 monkeypatch):
    base = tmp_path / "mine"
    base.mkdir(mode=0o700)
    monkeypatch.setenv("MEMLAB_SCRATCH", str(base))
    assert stat.S_IMODE(os.lstat(scratch_base()).st_mode) == 0o711  # PostgreSQL (its own user) reaches its volume


def _world_writable(path):
    path.mkdir()
    path.chmod(0o777)


def _link(path):
    (path.parent / "elsewhere").mkdir()
    path.symlink_to(path.parent / "elsewhere")


def _other_owner(path):
    path.mkdir(mode=0o711)  # memlab then runs as another user than the folder's owner


@pytest.mark.parametrize("make, said", [(_world_writable, "group or others may write in it (mode 777)"),
                                        (_link, "it is a symbolic link"),
                                        (_other_owner, f"user {os.geteuid()} owns it")])
def test_a_base_another_user_could_reach_into_is_refused_with_the_fix(tmp_path, monkeypatch, make, said):
    if make is _other_owner:
        monkeypatch.setattr(scratch.os, "geteuid", lambda: 65534)
    base = tmp_path / "scratch"
    make(base)
    monkeypatch.setenv("MEMLAB_SCRATCH", str(base))
    with pytest.raises(ScratchRefused, match="fix: "):
        scratch_base()
    done = CliRunner().invoke(main, ["gc"])
    assert done.exit_code == 2 and said in done.output and "MEMLAB_SCRATCH" in done.output, done.output
