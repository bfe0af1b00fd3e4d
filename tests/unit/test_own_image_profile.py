"""A profile naming its own SUT image (``image:``): one strict field, clear errors, and the runtimes'
answer to where it can run (docker only; a tagged image absent from the engine is named with the fix)."""

import pytest
from test_profile import GOOD

from lab.profile import ProfileError, load_profile
from lab.runtime import runnable
from lab.runtime import own_image

BASE = GOOD.replace("row: demo\n", "row: own\n")


def profile(tmp_path, image_line, driver="./agent", files=("Dockerfile",)):
    folder = tmp_path / "agent"
    folder.mkdir(exist_ok=True)
    for name in files:
        (folder / name).write_text("ARG BASE=memlab/base:bookworm\nFROM ${BASE}\n")
    text = BASE.replace("driver: reference\n", (f"driver: {driver}\n" if driver else "") + image_line)
    path = tmp_path / "own.yaml"
    path.write_text(text)
    return path


def test_a_dockerfile_in_the_driver_folder_stands_for_driver_py(tmp_path):
    prof = load_profile(profile(tmp_path, "image: {dockerfile: Dockerfile}\n"))
    assert prof.image.dockerfile == "Dockerfile" and prof.image.tag is None
    assert own_image.recipe(prof) == tmp_path / "agent" / "Dockerfile"
    assert prof.to_json()["image"] == {"dockerfile": "Dockerfile"}


def test_a_tagged_image_needs_no_driver_folder(tmp_path):
    prof = load_profile(profile(tmp_path, "image: {tag: acme/agent-memory:1.4}\n", driver=None, files=()))
    assert prof.image.tag == "acme/agent-memory:1.4" and prof.driver is None
    assert own_image.tag_of(prof) == "acme/agent-memory:1.4" and own_image.recipe(prof) is None


@pytest.mark.parametrize("image_line,files,field,message", [
    ("image: {dockerfile: Dockerfile, tag: acme/a:1}\n", ("Dockerfile",), "image", "exactly one of dockerfile and tag"),
    ("image: {}\n", (), "image", "exactly one of dockerfile and tag"),
    ("image: {dockerfile: ../Dockerfile}\n", (), "image.dockerfile", "climbs out"),
    ("image: {dockerfile: /etc/Dockerfile}\n", (), "image.dockerfile", "absolute path"),
    ("image: {dockerfile: Containerfile}\n", ("Dockerfile",), "image.dockerfile", "no file Containerfile"),
    ("image: {tag: 'Acme/Agent:1'}\n", (), "image.tag", "not an image reference"),
    ("image: {tag: 'acme/agent:1; rm -rf /'}\n", (), "image.tag", "not an image reference"),
    ("image: {tag: 14}\n", (), "image.tag", ""),
    ("image: {build: Dockerfile}\n", (), "image.build", ""),
    ("image: Dockerfile\n", ("Dockerfile",), "image", ""),
    ("", ("Dockerfile",), "driver", "no driver.py"),
])
def test_a_malformed_image_field_is_named_with_the_fix(tmp_path, image_line, files, field, message):
    path = profile(tmp_path, image_line, files=files)
    with pytest.raises(ProfileError) as info:
        load_profile(path)
    err = info.value
    assert err.field == field and message in err.message and err.fix and err.line, str(err)


def test_a_dockerfile_image_without_a_driver_folder_is_refused(tmp_path):
    with pytest.raises(ProfileError) as info:
        load_profile(profile(tmp_path, "image: {dockerfile: Dockerfile}\n", driver=None))
    assert info.value.field == "driver" and "Dockerfile" in info.value.fix


class _Runtime:
    def __init__(self, name):
        self.name = name

    def available(self):
        return True, "here"


def test_the_local_runtime_refuses_an_own_image_with_the_fix(tmp_path):
    prof = load_profile(profile(tmp_path, "image: {dockerfile: Dockerfile}\n"))
    ok, why = runnable(_Runtime("local"), prof)
    assert not ok and "--runtime docker" in why


def test_an_absent_tagged_image_is_not_runnable_and_says_how_to_bring_it(tmp_path, monkeypatch):
    prof = load_profile(profile(tmp_path, "image: {tag: acme/agent-memory:1.4}\n", driver=None, files=()))
    monkeypatch.setattr(own_image, "image_id", lambda ref: None)
    ok, why = runnable(_Runtime("docker"), prof)
    assert not ok and "acme/agent-memory:1.4 is not on the docker engine" in why
    assert "docker build -t acme/agent-memory:1.4" in why and "docker load" in why
    monkeypatch.setattr(own_image, "image_id", lambda ref: "sha256:feed")
    assert runnable(_Runtime("docker"), prof) == (True, "here")


def test_an_unbuilt_dockerfile_image_names_its_build_command(tmp_path, monkeypatch):
    monkeypatch.setattr(own_image, "image_id", lambda ref: None)
    prof = load_profile(profile(tmp_path, "image: {dockerfile: Dockerfile}\n"))
    assert own_image.missing(prof).endswith("memlab run --runtime docker --sut own (it builds the image first)")
    shipped = load_profile(own_image.images.IMAGES_DIR.parent / "sut_profiles" / "openclaw-memory-md.yaml")
    assert own_image.missing(shipped).endswith("memlab images build sut-openclaw-memory-md")


def test_an_own_dockerfile_not_on_the_labs_base_is_refused_before_any_build(tmp_path, monkeypatch):
    prof = load_profile(profile(tmp_path, "image: {dockerfile: Dockerfile}\n"))
    (tmp_path / "agent" / "Dockerfile").write_text("FROM debian:bookworm\nRUN true\n")
    monkeypatch.setattr(own_image.images, "ensure_base", lambda *a, **k: pytest.fail("no build may start"))
    with pytest.raises(own_image.ImageBuildError, match=r"built on the lab's base.*FROM \$\{BASE\}"):
        own_image.ensure(prof, [], lambda line: None)


def test_a_tagged_image_present_is_used_as_it_is(tmp_path, monkeypatch):
    prof = load_profile(profile(tmp_path, "image: {tag: 'registry.local:5000/acme/agent:1.4'}\n", driver=None,
                                files=()))
    monkeypatch.setattr(own_image, "image_id", lambda ref: "sha256:feed" if ref == prof.image.tag else None)
    monkeypatch.setattr(own_image, "image_labels", lambda ref: {"org.acme": "1"})
    monkeypatch.setattr(own_image.images, "ensure_sut", lambda *a, **k: pytest.fail("a tagged image is never built"))
    rec = own_image.ensure(prof, [], lambda line: None)
    assert (rec.name, rec.tag, rec.id, rec.built) == ("sut-agent", "registry.local:5000/acme/agent:1.4", "sha256:feed", False)
    assert own_image.packages(prof) == ({}, "not listed (an own image without a package-lock.json in its driver folder)")
