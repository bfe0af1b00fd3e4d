"""Step 5 of docs/own-sut.md, followed as written: the tutorial's driver in an image of its own
(``image: {dockerfile: Dockerfile}``), built by the lab, run on the docker runtime, verified.

The page is the source, as for tests/system/test_own_sut.py: the blocks after ``<!-- image_file: PATH -->``
are written beside the tutorial's files, the block after ``<!-- image_commands -->`` is run line by
line, and the block after ``<!-- image_verdicts -->`` is the matrix the run must give.
"""

from __future__ import annotations

import json

import pytest

from lab.profile import load_profile
from lab.runtime import own_image
from lab.runtime.dockercli import docker, image_id
from test_own_sut import FOLDER, block, marked_blocks, memlab, write_tutorial

pytestmark = pytest.mark.docker


def image_listings() -> dict[str, str]:
    """The section's files: path inside the tutorial folder -> content."""
    return {arg: text for marker, arg, text in marked_blocks() if marker == "image_file"}


@pytest.fixture(scope="module")
def section(tmp_path_factory, cache):
    """The tutorial folder with the section's files, the image's tag, and each command's outcome."""
    root = tmp_path_factory.mktemp("own-image")
    folder = write_tutorial(root)
    for rel, text in image_listings().items():
        (folder / rel).write_text(text, encoding="utf-8")
    tag = own_image.tag_of(load_profile(folder / "imaged-toynotes.yaml"))
    if image_id(tag):  # this test's own image from an earlier run: the list must see it absent
        docker("rmi", "-f", tag, timeout=120)
    done = [(line, memlab(line, root)) for line in block("image_commands").splitlines()]
    return root, folder, tag, done


def test_the_section_lists_a_dockerfile_and_a_profile_naming_it():
    files = image_listings()
    assert set(files) == {"toynotes-driver/Dockerfile", "imaged-toynotes.yaml"}
    assert "FROM ${BASE}" in files["toynotes-driver/Dockerfile"]
    assert "image: {dockerfile: Dockerfile}" in files["imaged-toynotes.yaml"]


def test_every_command_exits_0_and_list_names_the_missing_image(section):
    _, _, tag, done = section
    assert [line.split()[1] for line, _ in done] == ["list", "run", "verify"]
    for line, proc in done:
        assert proc.returncode == 0, f"{line}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    listed = " ".join(done[0][1].stdout.split())
    assert f"image {tag} not built yet" in listed.replace("│ ", "").replace(" │", ""), listed


def test_the_run_gives_the_matrix_the_section_shows_from_the_own_image(section):
    _, folder, tag, done = section
    header, *lines = block("image_verdicts").splitlines()
    names = header.split()[1:]
    expected = {cols[0]: dict(zip(names, cols[1:])) for cols in (ln.split() for ln in lines)}
    results = folder / "results-image"
    rows = {r["row"]: r for r in (json.loads(p.read_text()) for p in (results / "rows").glob("*.json"))}
    assert set(rows) == set(expected) == {"imaged-toynotes"}
    row = rows["imaged-toynotes"]
    got = {cid: {"ACCEPTED": "ACC", "REJECTED": "REJ"}.get(c["verdict"], c["verdict"]) for cid, c in row["cells"].items()}
    got.update({c: "ok" if row["controls"][c]["ok"] else "FAIL" for c in ("C1", "C2")})
    assert got == expected["imaged-toynotes"]
    env = json.loads((results / "observations" / "imaged-toynotes" / "environment.json").read_text())
    assert env["runtime"] == "docker" and env["detail"]["image"] == tag
    assert env["detail"]["own_image"] == {"dockerfile": "Dockerfile"}
    assert image_id(tag) and docker("image", "inspect", "--format", "{{index .Config.Labels \"memlab.recipe\"}}",
                                    tag, timeout=30).stdout.strip() == "Dockerfile"
    verify = dict(done)[next(line for line, _ in done if line.startswith("memlab verify"))]
    assert verify.stdout.startswith(f"VERIFIED {FOLDER}/results-image: 1 row(s)"), verify.stdout
