"""Snapshot and restore of a volume directory as a unit, and the file digests C3 diffs."""

import os

import pytest

from edits.volumes import VolumeError, diff_digests, digest_tree, restore, snapshot

HOLE = 8 * 1024 * 1024


def build(vol):
    (vol / "sub" / ".hidden").mkdir(parents=True)
    (vol / "memory.db").write_bytes(b"SQLite format 3\x00" + bytes(range(256)))
    (vol / "sub" / ".hidden" / "key").write_text("secret")
    os.chmod(vol / "sub" / ".hidden" / "key", 0o600)
    os.chmod(vol / "sub", 0o750)
    (vol / ".dotfile").write_text("dot")
    os.symlink("memory.db", vol / "link")
    with open(vol / "sparse.bin", "wb") as fh:
        fh.seek(HOLE)
        fh.write(b"tail")
    os.utime(vol / "memory.db", (1_600_000_000, 1_600_000_000))


def stats(root):
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            st = os.lstat(os.path.join(dirpath, name))
            out[os.path.relpath(os.path.join(dirpath, name), root)] = (st.st_mode, st.st_uid, st.st_gid, st.st_size,
                                                                     None if os.path.isdir(os.path.join(dirpath, name)) else st.st_mtime_ns)
    return out


def test_snapshot_is_byte_exact_and_keeps_attributes(tmp_path):
    vol = tmp_path / "vol"
    vol.mkdir()
    build(vol)
    snap = snapshot(vol, tmp_path / "snaps" / "vol")
    assert digest_tree(snap) == digest_tree(vol)
    assert stats(snap) == stats(vol)
    assert os.readlink(snap / "link") == "memory.db"
    assert oct(os.stat(snap / "sub" / ".hidden" / "key").st_mode & 0o777) == "0o600"


def test_sparse_file_stays_sparse(tmp_path):
    vol = tmp_path / "vol"
    vol.mkdir()
    build(vol)
    if os.stat(vol / "sparse.bin").st_blocks * 512 >= HOLE:
        pytest.fail("this file system does not keep holes; the sparse check cannot be made here")
    snap = snapshot(vol, tmp_path / "snap")
    assert os.stat(snap / "sparse.bin").st_blocks * 512 < HOLE // 8
    restore(snap, vol)
    assert os.stat(vol / "sparse.bin").st_blocks * 512 < HOLE // 8


def test_restore_leaves_nothing_from_before(tmp_path):
    vol = tmp_path / "vol"
    vol.mkdir()
    build(vol)
    before = digest_tree(vol)
    before_stats = stats(vol)
    snap = snapshot(vol, tmp_path / "snap")
    (vol / "memory.db").write_bytes(b"changed")
    (vol / "memory.db-wal").write_bytes(b"new wal")
    (vol / ".new-dot").write_text("x")
    (vol / "newdir" / ".deep").mkdir(parents=True)
    os.chmod(vol / "sub" / ".hidden" / "key", 0o644)
    (vol / "link").unlink()
    diff = diff_digests(before, digest_tree(vol))
    assert diff == {"added": [".new-dot", "memory.db-wal", "newdir", "newdir/.deep"], "removed": ["link"],
                    "changed": ["memory.db", "sub/.hidden/key"]}
    inode = os.stat(vol).st_ino
    restore(snap, vol)
    assert digest_tree(vol) == before and stats(vol) == before_stats
    assert os.stat(vol).st_ino == inode, "the volume directory itself (maybe a mount point) is kept"


def test_restore_into_a_missing_target_and_errors(tmp_path):
    vol = tmp_path / "vol"
    vol.mkdir()
    (vol / "f").write_text("1")
    snap = snapshot(vol, tmp_path / "snap")
    assert digest_tree(restore(snap, tmp_path / "elsewhere" / "vol")) == digest_tree(vol)
    with pytest.raises(VolumeError, match="already exists"):
        snapshot(vol, snap)
    with pytest.raises(VolumeError, match="no such snapshot"):
        restore(tmp_path / "nope", vol)


def test_digest_entries(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_bytes(b"abc")
    os.chmod(tmp_path / "d" / "f", 0o640)
    tree = digest_tree(tmp_path)
    assert tree["d/f"] == {"sha256": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                           "size": 3, "mode": "100640"}
    assert tree["d"]["sha256"] is None and tree["d"]["mode"].startswith("40")


def test_numeric_owners_survive(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("only root can give files other owners")
    vol = tmp_path / "vol"
    vol.mkdir()
    (vol / "f").write_text("x")
    os.chown(vol / "f", 12345, 23456)  # ids with no name on this host
    snap = snapshot(vol, tmp_path / "snap")
    assert (os.stat(snap / "f").st_uid, os.stat(snap / "f").st_gid) == (12345, 23456)
    os.chown(vol / "f", 0, 0)
    restore(snap, vol)
    assert (os.stat(vol / "f").st_uid, os.stat(vol / "f").st_gid) == (12345, 23456)


def test_restore_clears_read_only_directories(tmp_path):
    vol = tmp_path / "vol"
    vol.mkdir()
    snap = snapshot(vol, tmp_path / "snap")
    (vol / "ro").mkdir()
    (vol / "ro" / "f").write_text("x")
    os.chmod(vol / "ro", 0o500)
    restore(snap, vol)
    assert digest_tree(vol) == {}
