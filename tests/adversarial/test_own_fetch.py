"""A row's own Dockerfile builds with no network, so what it installs is declared in its folder and
fetched by the lab's own steps (lab.runtime.own_fetch): each declaration is checked before anything
is fetched, so a hostile folder cannot make the lab's step reach where it chose. No Docker here; the
build itself is tests/docker/test_own_build.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lab.runtime import own_fetch
from lab.runtime.image_build import ImageBuildError

FIXTURE = Path(__file__).parents[1] / "fixtures" / "own-fetch"
HASH = "--hash=sha256:" + "ab" * 32


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A copy of the fixture folder that declares from all three sources."""
    return Path(shutil.copytree(FIXTURE, tmp_path / "own"))


def refused(call) -> str:
    with pytest.raises(ImageBuildError) as caught:
        call()
    return str(caught.value)


def test_the_fixture_declares_all_three_and_each_reads_back(folder):
    assert own_fetch.declared(folder) == ["debian-packages.txt", "requirements.txt", "package-lock.json"]
    assert own_fetch.debian_packages(folder) == ["jq"]
    assert own_fetch.pinned_requirements(folder) == 1
    assert own_fetch.npm_lock(folder) is True


def test_a_folder_that_declares_nothing_fetches_nothing(tmp_path):
    (tmp_path / "Dockerfile").write_text("FROM ${BASE}\n")
    own_fetch.fetch(tmp_path, tmp_path, "memlab/base:bookworm", print)  # no Docker, no npm, no pip needed
    assert own_fetch.declared(tmp_path) == [] and list((tmp_path / "fetched").iterdir()) == []


@pytest.mark.parametrize("line", ["--index-url http://127.0.0.1:8080/simple", "-f http://127.0.0.1/",
                                  "six==1.16.0", "six>=1.16 " + HASH, "-e .", "./local.whl " + HASH,
                                  "six @ http://127.0.0.1/six.whl " + HASH, "-r other.txt"])
def test_a_requirement_that_is_not_one_hashed_pin_is_refused_with_file_and_line(folder, line):
    (folder / "requirements.txt").write_text(f"# pinned\nsix==1.16.0 {HASH}\n{line}\n")
    message = refused(lambda: own_fetch.pinned_requirements(folder))
    assert f"requirements.txt:3: {line[:80]!r}" in message and "fix: write each as name==version --hash" in message


@pytest.mark.parametrize("name", ["-o=APT::Get::x", "nodejs=18.0", "../x", "Node", "a b", "$(id)"])
def test_a_debian_line_that_is_not_a_package_name_is_refused(folder, name):
    (folder / "debian-packages.txt").write_text(f"jq\n{name}\n")
    assert f"debian-packages.txt:2: {name!r} is not a Debian package name" in refused(
        lambda: own_fetch.debian_packages(folder))


@pytest.mark.parametrize("spec", ["file:../../etc", "link:/root", "git+ssh://host/x.git", "https://127.0.0.1/x.tgz",
                                  "github:acme/x", "acme/x", "gitlab:a/b"])
def test_a_dependency_outside_the_registry_is_refused(folder, spec):
    manifest = json.loads((folder / "package.json").read_text())
    manifest["dependencies"]["evil"] = spec
    (folder / "package.json").write_text(json.dumps(manifest))
    assert "not a package of the registry" in refused(lambda: own_fetch.npm_lock(folder))


def test_a_registry_alias_is_a_registry_package(folder):
    manifest = json.loads((folder / "package.json").read_text())
    manifest["dependencies"]["num"] = "npm:is-number@7.0.0"
    (folder / "package.json").write_text(json.dumps(manifest))
    assert own_fetch.npm_lock(folder) is True


@pytest.mark.parametrize("entry, said", [({"version": "1.0.0", "resolved": "http://127.0.0.1:4873/x.tgz"}, "not the npm"),
                                         ({"link": True, "resolved": "../../.."}, "not the npm"),
                                         ({"version": "1.0.0", "resolved": "https://registry.npmjs.org.evil/x.tgz"},
                                          "not the npm")])
def test_a_lock_entry_from_elsewhere_is_refused(folder, entry, said):
    lock = json.loads((folder / "package-lock.json").read_text())
    lock["packages"]["node_modules/evil"] = entry
    (folder / "package-lock.json").write_text(json.dumps(lock))
    assert said in refused(lambda: own_fetch.npm_lock(folder))


def test_a_lock_path_that_climbs_out_of_node_modules_is_refused(folder):
    lock = json.loads((folder / "package-lock.json").read_text())
    lock["packages"]["node_modules/../../x"] = {"version": "1.0.0"}
    (folder / "package-lock.json").write_text(json.dumps(lock))
    assert "is not a package under node_modules" in refused(lambda: own_fetch.npm_lock(folder))


def test_workspaces_a_missing_manifest_and_bad_json_are_refused(folder):
    manifest = json.loads((folder / "package.json").read_text())
    (folder / "package.json").write_text(json.dumps({**manifest, "workspaces": ["../../"]}))
    assert "declares workspaces" in refused(lambda: own_fetch.npm_lock(folder))
    (folder / "package.json").unlink()
    assert "package.json: missing beside package-lock.json" in refused(lambda: own_fetch.npm_lock(folder))
    (folder / "package.json").write_text("{\n  \"name\": ,\n}")
    assert "package.json:2: not JSON" in refused(lambda: own_fetch.npm_lock(folder))


def test_a_declaration_that_is_a_link_or_huge_is_refused(folder, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("jq\n")
    (folder / "debian-packages.txt").unlink()
    (folder / "debian-packages.txt").symlink_to(secret)
    assert "a link; the lab reads only a regular file" in refused(lambda: own_fetch.declared(folder))
    (folder / "debian-packages.txt").unlink()
    (folder / "debian-packages.txt").write_bytes(b"jq\n" * (own_fetch.MAX_FILE // 3 + 1))
    assert "over 16 MiB" in refused(lambda: own_fetch.debian_packages(folder))


def test_a_link_npm_made_out_of_node_modules_is_refused(tmp_path):
    modules = tmp_path / "node_modules"
    (modules / ".bin").mkdir(parents=True)
    (modules / ".bin" / "ok").symlink_to("../x")
    own_fetch._check_links(modules)
    (modules / ".bin" / "out").symlink_to("/etc/passwd")
    assert "a link out of node_modules" in refused(lambda: own_fetch._check_links(modules))


names = st.from_regex(r"[A-Za-z][A-Za-z0-9._-]{0,20}", fullmatch=True)
versions = st.from_regex(r"[0-9]{1,3}(\.[0-9]{1,3}){0,3}", fullmatch=True)
digests = st.text("0123456789abcdef", min_size=64, max_size=64)


@given(names, versions, st.lists(digests, min_size=1, max_size=3))
def test_every_hashed_pin_is_taken(name, version, hashes):
    line = f"{name}=={version} " + " ".join(f"--hash=sha256:{h}" for h in hashes)
    assert own_fetch._PINNED.fullmatch(line)


@given(st.text(max_size=200))
def test_an_accepted_line_never_carries_an_option_or_a_place(line):
    """Whatever the text: a line taken names one distribution by version and hashes, and nothing pip
    would read as an index, a link, a file or another requirements file."""
    if own_fetch._PINNED.fullmatch(line):
        head = line.split()[0]
        assert "==" in head and not head.startswith("-") and "/" not in line and ":" not in head
        assert all(part.startswith("--hash=sha256:") for part in line.split()[1:])
