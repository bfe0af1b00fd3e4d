"""A validated profile is kept in the lab's cache under the digest of what its checks read (lab.cli.profile_cache):
found again only for the same text, path and code; a changed, unreadable or foreign entry is checked anew."""

from __future__ import annotations

import pickle
import shutil

import pytest

from lab import PROFILES_DIR
from lab.cli import profile_cache
from lab.profile import load_profile


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLAB_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "profiles"


@pytest.fixture
def checks(monkeypatch):
    """The profiles checked (load_profile called) in a test."""
    seen = []

    def counted(path):
        seen.append(path)
        return load_profile(path)

    monkeypatch.setattr("lab.profile.load_profile", counted)
    return seen


def test_a_profile_checked_once_is_found_by_its_key(cache, checks):
    path = PROFILES_DIR / "lifecycle-naive.yaml"
    first = profile_cache.cached_load(path)
    again = profile_cache.cached_load(path)
    assert again == first == load_profile(path) and len(checks) == 1
    assert [p.stem for p in cache.iterdir()] == [profile_cache.key(path)]


def test_another_text_is_checked_anew(cache, checks, tmp_path):
    path = tmp_path / "profiles" / "lifecycle-naive.yaml"
    path.parent.mkdir()
    shutil.copyfile(PROFILES_DIR / "lifecycle-naive.yaml", path)
    profile_cache.cached_load(path)
    path.write_text(path.read_text().replace("timeouts: {start: 30, op: 10}", "timeouts: {start: 31, op: 10}"))
    assert profile_cache.cached_load(path).timeouts["start"] == 31 and len(checks) == 2


@pytest.mark.parametrize("entry", [b"not a pickle", pickle.dumps(("another key", "not a profile")),
                                   pickle.dumps(("KEY", {"row": "lifecycle-naive"}))])
def test_an_entry_not_of_its_key_is_checked_anew_and_replaced(cache, checks, entry):
    path = PROFILES_DIR / "lifecycle-naive.yaml"
    key = profile_cache.key(path)
    cache.mkdir(parents=True)
    (cache / f"{key}.pickle").write_bytes(entry.replace(b"KEY", key.encode()))
    assert profile_cache.cached_load(path) == load_profile(path) and len(checks) == 1
    assert pickle.loads((cache / f"{key}.pickle").read_bytes())[0] == key


def test_a_driver_folder_outside_images_is_never_kept(cache, checks, tmp_path):
    path = tmp_path / "own.yaml"
    (tmp_path / "my-driver").mkdir()
    (tmp_path / "my-driver" / "driver.py").write_text("")
    text = (PROFILES_DIR / "lifecycle-naive.yaml").read_text()
    path.write_text(text.replace("row: lifecycle-naive", "row: own").replace("driver: lifecycle-reference",
                                                                           "driver: ./my-driver"))
    profile_cache.cached_load(path)
    profile_cache.cached_load(path)
    assert len(checks) == 2 and not cache.exists()


def test_the_cache_keeps_the_newest_entries(cache, monkeypatch, tmp_path):
    monkeypatch.setattr(profile_cache, "KEEP", 2)
    for n in range(4):
        path = tmp_path / f"p{n}" / "lifecycle-naive.yaml"
        path.parent.mkdir()
        shutil.copyfile(PROFILES_DIR / "lifecycle-naive.yaml", path)
        profile_cache.cached_load(path)
    assert len(list(cache.iterdir())) == 2
